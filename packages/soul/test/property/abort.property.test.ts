/**
 * Property: whenever a turn with parallel tool calls is aborted (at a random
 * event or after a random delay: while the model streams, while tools run or
 * wait for approval, between steps, around a D-Mail or a compaction, and in
 * every other trial between the failed attempts and retries of a model
 * failing 30 % of its calls), every tool call in the context has exactly one
 * result, the file restores to the same history, and the next turn runs
 * (without delivering a D-Mail the aborted turn sent). Seeded: the seed is
 * printed, `SOUL_PROPERTY_SEED` replays it, `SOUL_ABORT_TRIALS` sets the
 * number of trials (default 30).
 */
import path from "node:path";
import { extractText } from "@kosong/core";
import { ChaosChatProvider } from "@kosong/core/testing";
import { Context, type SoulEvent } from "@kosong/soul";
import { TOOL_INTERRUPTED_MESSAGE } from "@kosong/soul/internal";
import { describe, expect, it } from "vitest";
import { randomFor, workloadSoul } from "../children/turn-child.js";
import { callCount, callProblems, failureKinds, propertySeed, restoreCopy, tempDir, trialCount } from "./helpers/property.js";

const trials = trialCount("SOUL_ABORT_TRIALS", 30);

/** Runs "turn 1" and aborts it at the k-th event or after `ms`; returns how far it got. */
async function abortedTurn(soul: ReturnType<typeof workloadSoul>, at: { event: number } | { ms: number }) {
  const controller = new AbortController();
  const timer = "ms" in at ? setTimeout(() => controller.abort(), at.ms) : undefined;
  const turn = soul.run("turn 1", { signal: controller.signal });
  const events: SoulEvent[] = [];
  for await (const event of turn) {
    events.push(event);
    if ("event" in at && events.length === at.event) controller.abort();
  }
  clearTimeout(timer);
  return { events, result: await turn.result };
}

describe("aborting turns with parallel tools at random points", () => {
  it(`keeps every call answered once, the file restorable and the soul usable (${trials} trials)`, async () => {
    const seed = propertySeed("abort property");
    const dir = await tempDir();
    const outcomes: Record<string, number> = {};
    let callsSeen = 0;
    let interrupted = 0;
    let reverted = 0;
    let compacting = 0;
    for (let trial = 0; trial < trials; trial++) {
      const random = randomFor(seed, trial);
      const at = random() < 0.5 ? { event: 1 + Math.floor(random() * 45) } : { ms: Math.floor(random() * 45) };
      const where = `seed ${seed}, trial ${trial}${trial % 2 === 1 ? " (chaos)" : ""}, abort at ${JSON.stringify(at)}`;
      const file = path.join(dir, `context-${trial}.jsonl`);
      const context = new Context(file);
      await context.restore();
      // Every other trial's model also fails 30 % of its calls, so aborts land in retries too.
      const chaos = trial % 2 === 1;
      const soul = workloadSoul(context, seed + trial, {
        wrap: (model) => (chaos ? new ChaosChatProvider(model, { seed: seed + trial, errorProbability: 0.3, kinds: failureKinds, retryAfterMs: 0 }) : model),
        // A small window: the default compaction (SimpleCompaction, summarised by the same model) runs every turn or two.
        config: { maxRetriesPerStep: 12, maxContextSize: 300, reservedContextSize: 0 },
      });
      // Up to two whole turns first (even ones, which send no D-Mail), so that the aborted one has history to compact.
      for (let warm = 0; warm < trial % 3; warm++) expect((await soul.run(`turn ${10 + 2 * warm}`).result).stopReason, where).toBe("no_tool_calls");

      const { events, result } = await abortedTurn(soul, at);
      outcomes[result.stopReason] = (outcomes[result.stopReason] ?? 0) + 1;
      expect(["aborted", "no_tool_calls"], where).toContain(result.stopReason);
      expect(events.at(-1)?.type, where).toBe("TurnEnd");
      expect(callProblems(context.history), where).toEqual([]);
      expect(soul.session.denwaRenji.pending, where).toBeNull();
      callsSeen += callCount(context.history);
      reverted += events.filter((e) => e.type === "Reverted").length;
      compacting += events.filter((e) => e.type === "CompactionBegin").length;
      interrupted += context.history.filter((m) => m.role === "tool" && extractText(m).includes(TOOL_INTERRUPTED_MESSAGE)).length;

      // The file says what the context says: nothing to repair, nothing lost.
      const restored = await restoreCopy(file);
      expect(restored.report.interruptedToolCalls, where).toEqual([]);
      expect(restored.history, where).toEqual(context.history);

      // The next turn runs to its end on top of whatever the abort left; a D-Mail the aborted turn sent is not delivered in it.
      const next = soul.run("turn 2");
      const nextEvents: SoulEvent[] = [];
      for await (const event of next) nextEvents.push(event);
      expect((await next.result).stopReason, where).toBe("no_tool_calls");
      expect(nextEvents.filter((e) => e.type === "Reverted"), where).toEqual([]);
      expect(callProblems(context.history), where).toEqual([]);
      expect((await restoreCopy(file)).history, where).toEqual(context.history);
      await context.close();
    }
    console.log(`[abort property] ${trials} trials: ${JSON.stringify(outcomes)}, ${callsSeen} tool calls in the contexts after the aborts, ${interrupted} of them answered as interrupted, ${reverted} D-Mails delivered, ${compacting} compactions begun`);
    // Many trials really were cut short (not a property of finished turns only).
    expect(outcomes.aborted ?? 0).toBeGreaterThanOrEqual(trials / 3);
  }, 30_000 + trials * 1_000);
});
