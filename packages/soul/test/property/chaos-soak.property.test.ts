/**
 * Chaos soak (quick version; `pnpm bench` runs the long one, soul-chaos):
 * the planned model behind a ChaosChatProvider that fails 30 % of calls (429s,
 * 5xx, 529s, timeouts, connection resets mid-stream, empty responses) over
 * many turns with parallel tools and D-Mails. Every turn completes, and the final
 * context (the history, and the file byte for byte) equals that of a
 * fault-free run of the same turns. Seeded: the seed is printed,
 * `SOUL_PROPERTY_SEED` replays it, `SOUL_CHAOS_TURNS` sets the number of
 * turns (default 30).
 *
 * `corrupt_tool_call` is left out on purpose: it is not a failed call but a
 * model that sent broken arguments, which the model then reads as an error
 * result, so that conversation rightly differs from the fault-free one.
 * Retries: 12 per step, so that a run of failures at 30 % (0.3^13 per step)
 * does not end a turn.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ChaosChatProvider } from "@kosong/core/testing";
import { Context } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { workloadSoul } from "../children/turn-child.js";
import { callProblems, failureKinds, propertySeed, tempDir, trialCount } from "./helpers/property.js";

const turns = trialCount("SOUL_CHAOS_TURNS", 30);

/** Runs `turns` turns on a new file, behind chaos when `chaotic`; returns the stop reasons, what failed, the history and the file. */
async function soak(file: string, seed: number, chaotic: boolean) {
  const context = new Context(file);
  await context.restore();
  let chaos: ChaosChatProvider | null = null;
  const soul = workloadSoul(context, seed, {
    streaming: { chunkSize: 16 },
    wrap: (model) => (chaotic ? (chaos = new ChaosChatProvider(model, { seed, errorProbability: 0.3, kinds: failureKinds, retryAfterMs: 0 })) : model),
    // A small window, so that the default compaction (kimi-cli's SimpleCompaction, summarised by the same chaotic model) runs now and then.
    config: { maxRetriesPerStep: 12, maxContextSize: 1000, reservedContextSize: 0 },
  });
  const stops: string[] = [];
  let retries = 0;
  let reverts = 0;
  let compactions = 0;
  for (let turn = 1; turn <= turns; turn++) {
    const run = soul.run(`turn ${turn}`);
    for await (const event of run) {
      if (event.type === "StepRetry") retries++;
      if (event.type === "Reverted") reverts++;
      if (event.type === "CompactionEnd") compactions++;
    }
    stops.push((await run.result).stopReason);
  }
  const history = context.history.map((m) => structuredClone(m));
  await context.close();
  return { stops, retries, reverts, compactions, faults: (chaos as ChaosChatProvider | null)?.faults.length ?? 0, history, bytes: await readFile(file) };
}

describe("chaos soak", () => {
  it(`completes every turn with 30 % of the calls failing, ending where a fault-free run ends (${turns} turns)`, async () => {
    const seed = propertySeed("chaos soak");
    const dir = await tempDir();
    const clean = await soak(path.join(dir, "clean.jsonl"), seed, false);
    const chaotic = await soak(path.join(dir, "chaos.jsonl"), seed, true);
    console.log(`[chaos soak] ${turns} turns, ${chaotic.faults} faults injected, ${chaotic.retries} retries, ${chaotic.reverts} D-Mails delivered, ${chaotic.compactions} compactions, ${chaotic.history.length} messages at the end`);

    expect(clean.stops).toEqual(Array(turns).fill("no_tool_calls"));
    expect(chaotic.stops).toEqual(Array(turns).fill("no_tool_calls"));
    expect(chaotic.faults).toBeGreaterThan(0);
    expect(chaotic.retries).toBe(chaotic.faults);
    expect(chaotic.reverts).toBe(clean.reverts);
    expect(chaotic.compactions).toBe(clean.compactions);
    expect(callProblems(chaotic.history)).toEqual([]);
    expect(chaotic.history).toEqual(clean.history);
    expect(chaotic.bytes.equals(clean.bytes)).toBe(true);
  }, 30_000 + turns * 1_000);
});
