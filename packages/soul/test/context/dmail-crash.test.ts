/**
 * D-Mail delivery and crashes, with real processes: a child (on the built
 * package) reverts with a fresh checkpoint and the D-Mail as `then`, over
 * and over, and is SIGKILLed at a seeded random moment, in half the trials
 * just as a delivery starts. The restored context is the conversation
 * before the delivery or after it with the D-Mail, never reverted without
 * it, and its checkpoints still revert correctly. Set KOSONG_CRASH_SEED to
 * replay a run.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { userMessage, type Message } from "@kosong/core";
import { Context } from "@kosong/soul";
import { validateConversation } from "@kosong/soul/conversation";
import { randomFor } from "../children/turn-child.js";
import { killWhenReady } from "./helpers/kill-child.js";
import { tempDir } from "@kosong/test-support";

const seed = Number(process.env.KOSONG_CRASH_SEED ?? Date.now() % 1_000_000);
const TRIALS = 20;

const sha = (messages: readonly Message[]) => createHash("sha256").update(JSON.stringify(messages.map((m) => [m.role, m.content]))).digest("hex");

describe(`D-Mail delivery under SIGKILL (seed ${seed})`, () => {
  it("restores the conversation before the D-Mail or after it, never reverted without it", async () => {
    let inside = 0;
    for (let pair = 0; pair < TRIALS; pair += 2) {
      await Promise.all(
        [pair, pair + 1].map(async (trial) => {
          const context = `trial ${trial}, seed ${seed}`;
          const rand = randomFor(seed, trial, 1);
          const file = path.join(await tempDir(), "context.jsonl");
          const nth = 1 + Math.floor(rand() * 3);
          let seen = 0;
          const { lines } =
            trial % 2 === 0
              ? await killWhenReady("dmail-crash-child.ts", [file], (l) => l.startsWith("delivering ") && ++seen === nth, { delayMs: Math.floor(rand() * 6) })
              : await killWhenReady("dmail-crash-child.ts", [file], "ready", { delayMs: Math.floor(rand() * 300) });

          const restored = new Context(file);
          await restored.restore();
          expect(restored.history.length, context).toBeGreaterThan(0);
          expect(validateConversation(restored.history), context).toEqual([]);
          const last = lines.findLast((l) => l.startsWith("delivering ") || l === "delivered");
          if (last?.startsWith("delivering ")) {
            inside += 1;
            const [, before, after] = last.split(" ");
            expect([before, after], `${context}: neither before nor after the D-Mail`).toContain(sha(restored.history));
          }
          // Every checkpoint still reverts to the messages before it, and the context goes on.
          const mark = restored.checkpoints.at(-1)!;
          const kept = restored.history.slice(0, mark.messageCount);
          await restored.revertTo(mark.id);
          expect(sha(restored.history), context).toBe(sha(kept));
          await restored.appendMessage(userMessage("after the crash"));
          await restored.close();
        }),
      );
    }
    console.info(`dmail crash: ${TRIALS} kills, ${inside} inside a delivery`);
  }, 180_000);
});
