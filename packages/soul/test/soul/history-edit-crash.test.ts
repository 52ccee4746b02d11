/**
 * Whole-history operations and crashes, with real processes: a child
 * (children/history-edit-child.ts, on the built packages) runs turns and
 * then compacts, or rewrites an earlier question (the host's D-Mail), over
 * and over, and is SIGKILLed at a seeded random moment, in half the trials
 * just as such an edit starts. Restoring the file afterwards never gives an
 * empty or broken conversation: a kill inside an edit leaves the
 * conversation before it or the edited one (a rewrite's rerun may have
 * gone on after it), and the next turn runs on it.
 * Set KOSONG_CRASH_SEED to replay a run.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SimpleToolset, type Message } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { Context, Soul } from "@kosong/soul";
import { validateConversation } from "@kosong/soul/conversation";
import { randomFor } from "../children/turn-child.js";
import { killWhenReady } from "../context/helpers/kill-child.js";
import { collect, noWait, outline, tempDir } from "./helpers.js";

const seed = Number(process.env.KOSONG_CRASH_SEED ?? Date.now() % 1_000_000);
const TRIALS = 24;

/** The child's hash of a conversation: each message's role and content. */
const sha = (messages: readonly Message[]) => createHash("sha256").update(JSON.stringify(messages.map((m) => [m.role, m.content]))).digest("hex");

/** Runs `trial` for 0..count-1, two at a time. */
async function inPairs(count: number, trial: (i: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < count; i += 2) await Promise.all([trial(i), ...(i + 1 < count ? [trial(i + 1)] : [])]);
}

describe.each(["compact", "rewrite"] as const)(`%s under SIGKILL (seed ${seed})`, (mode) => {
  it("restores the conversation before the edit or the edited one, never an empty one, and the next turn runs", async () => {
    let insideEdit = 0;
    let edited = 0;
    await inPairs(TRIALS, async (trial) => {
      const context = `${mode}, trial ${trial}, seed ${seed}`;
      const rand = randomFor(seed, trial);
      const file = path.join(await tempDir(), "context.jsonl");
      // Even trials: up to 8 ms after the 1st to 3rd "editing" line; odd ones: up to 400 ms after "ready".
      const nth = 1 + Math.floor(rand() * 3);
      let seen = 0;
      const aimed = trial % 2 === 0;
      const child = "soul/children/history-edit-child.ts";
      const { lines } = aimed
        ? await killWhenReady(child, [file, mode], (l) => l.startsWith("editing ") && ++seen === nth, { delayMs: Math.floor(rand() * 8) })
        : await killWhenReady(child, [file, mode], "ready", { delayMs: Math.floor(rand() * 400) });

      const restored = new Context(file);
      await restored.restore();
      expect(restored.history.length, `${context}: the conversation is empty`).toBeGreaterThan(0);
      expect(validateConversation(restored.history), context).toEqual([]);
      const last = lines.findLast((l) => l.startsWith("editing ") || l === "edited");
      if (last?.startsWith("editing ")) {
        insideEdit += 1;
        const [, before, after, length] = last.split(" ");
        const whole = sha(restored.history);
        // A compaction is one write; a rewrite's rerun appends after its one write.
        const prefix = sha(restored.history.slice(0, Number(length)));
        const now = whole === before ? "before" : prefix === after ? "edited" : null;
        expect(now, `${context}: neither the conversation before the edit nor the edited one: ${JSON.stringify(outline(restored))}`).not.toBeNull();
        if (now === "edited") edited += 1;
      }

      const soul = new Soul({
        agent: { name: "after the crash", systemPrompt: "You see your history edited a lot.", toolset: new SimpleToolset([]) },
        provider: new ScriptedChatProvider(["text: the next answer"]),
        context: restored,
        config: { retry: noWait },
      });
      const kept = restored.history.length;
      const { result } = await collect(soul.run("after the crash"));
      expect(result.stopReason, context).toBe("no_tool_calls");
      expect(outline(restored).slice(kept), context).toEqual(["user:after the crash", "assistant:the next answer"]);
      await restored.close();
    });
    // Informational: how many kills landed inside an edit, and how many of those after its one write.
    console.info(`${mode} crash: ${TRIALS} kills, ${insideEdit} inside the edit, ${edited} of them after it was written`);
  }, 180_000);
});
