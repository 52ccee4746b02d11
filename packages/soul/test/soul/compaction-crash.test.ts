/**
 * Compaction and crashes, with real processes: a child (children/
 * compaction-child.ts, on the built packages) runs turns and compacts over
 * and over, and is SIGKILLed at a seeded random moment, in half the trials
 * just as a compaction starts. Restoring the file afterwards never gives an
 * empty conversation: a kill inside a compaction leaves the old
 * conversation or the compacted one, and the next turn runs on it.
 * Set KOSONG_CRASH_SEED to replay a run.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SimpleToolset, type Message } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { Context, Soul, validateConversation } from "@kosong/soul";
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

describe(`compaction under SIGKILL (seed ${seed})`, () => {
  it("restores the old conversation or the compacted one, never an empty one, and the next turn runs", async () => {
    let insideCompaction = 0;
    let compacted = 0;
    await inPairs(TRIALS, async (trial) => {
      const context = `trial ${trial}, seed ${seed}`;
      const rand = randomFor(seed, trial);
      const file = path.join(await tempDir(), "context.jsonl");
      // Even trials: up to 8 ms after the 1st to 3rd "compacting" line; odd ones: up to 400 ms after "ready".
      const nth = 1 + Math.floor(rand() * 3);
      let seen = 0;
      const aimed = trial % 2 === 0;
      const { lines } = aimed
        ? await killWhenReady("soul/children/compaction-child.ts", [file], (l) => l.startsWith("compacting ") && ++seen === nth, { delayMs: Math.floor(rand() * 8) })
        : await killWhenReady("soul/children/compaction-child.ts", [file], "ready", { delayMs: Math.floor(rand() * 400) });

      const restored = new Context(file);
      await restored.restore();
      expect(restored.history.length, `${context}: the conversation is empty`).toBeGreaterThan(0);
      expect(validateConversation(restored.history), context).toEqual([]);
      const last = lines.findLast((l) => l.startsWith("compacting ") || l === "compacted");
      if (last?.startsWith("compacting ")) {
        insideCompaction += 1;
        const [, before, after] = last.split(" ");
        const now = sha(restored.history);
        expect([before, after], `${context}: neither the old conversation nor the compacted one: ${JSON.stringify(outline(restored))}`).toContain(now);
        if (now === after) compacted += 1;
      }

      const soul = new Soul({
        agent: { name: "after the crash", systemPrompt: "You are compacted a lot.", toolset: new SimpleToolset([]) },
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
    // Informational: how many kills landed inside a compaction, and how many of those after its one write.
    console.info(`compaction crash: ${TRIALS} kills, ${insideCompaction} inside a compaction, ${compacted} of them after it was written`);
  }, 180_000);
});
