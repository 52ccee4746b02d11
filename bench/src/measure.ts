/**
 * Measuring helpers: warm up, then time ours and the baseline in interleaved
 * rounds (alternating which goes first, so drift and GC pressure hit both
 * alike), and report medians.
 */
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { BenchRow } from "./bench-types.ts";

/** Something to time: one call is one sample's worth of work. */
export type Work = () => unknown;

/** The median of `values` (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Milliseconds one call of `work` takes (awaited when it returns a promise). */
export async function timeOnce(work: Work): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/** Options of {@link compare}. */
export type CompareOptions = {
  /** Untimed calls of each side first (JIT warm-up). */
  warmup: number;
  /** Timed rounds; each round times both sides once. */
  rounds: number;
};

/** Medians of interleaved samples, and all the samples. */
export type Comparison = {
  ours_ms: number;
  baseline_ms: number;
  /**
   * The median of the per-round ratios ours/baseline. Each round times both
   * sides back to back, so a burst of load from elsewhere tends to hit both
   * sides of the same round: this is steadier than the ratio of the medians
   * on a shared machine, and close to it on a quiet one.
   */
  ratio: number;
  ours: number[];
  baseline: number[];
};

/** Times `ours` against `baseline` in interleaved rounds and returns the medians. */
export async function compare(ours: Work, baseline: Work, options: CompareOptions): Promise<Comparison> {
  for (let i = 0; i < options.warmup; i++) {
    await ours();
    await baseline();
  }
  const oursTimes: number[] = [];
  const baselineTimes: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    if (round % 2 === 0) {
      oursTimes.push(await timeOnce(ours));
      baselineTimes.push(await timeOnce(baseline));
    } else {
      baselineTimes.push(await timeOnce(baseline));
      oursTimes.push(await timeOnce(ours));
    }
  }
  return comparison(oursTimes, baselineTimes);
}

/**
 * Runs each of `sides` once per round for `count` rounds, starting each
 * round one side further on (so drift and bursts of load from elsewhere hit
 * every side alike); what each side gave, in round order (`result.x[i]` and
 * `result.y[i]` come from the same round).
 */
export async function rotatingRounds<T>(count: number, sides: Record<string, () => Promise<T>>): Promise<Record<string, T[]>> {
  const names = Object.keys(sides);
  const results: Record<string, T[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < count; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length]!;
      results[name]!.push(await sides[name]!());
    }
  }
  return results;
}

/** Times each of `sides` in {@link rotatingRounds}, after `warmup` untimed calls of each. */
export async function roundRobin(sides: Record<string, Work>, options: CompareOptions): Promise<Record<string, number[]>> {
  for (let i = 0; i < options.warmup; i++) for (const work of Object.values(sides)) await work();
  return rotatingRounds(options.rounds, Object.fromEntries(Object.entries(sides).map(([name, work]) => [name, () => timeOnce(work)])));
}

/** The {@link Comparison} of interleaved samples: `ours[i]` and `baseline[i]` were timed in the same round. */
export function comparison(ours: number[], baseline: number[]): Comparison {
  return {
    ours_ms: median(ours),
    baseline_ms: median(baseline),
    ratio: median(ours.map((t, i) => t / baseline[i]!)),
    ours,
    baseline,
  };
}

/** A result row from a comparison. */
export function toRow(name: string, baseline: string, result: Comparison, extra: { goal?: number; note?: string } = {}): BenchRow {
  const row: BenchRow = { name, ours_ms: result.ours_ms, baseline, baseline_ms: result.baseline_ms, ratio: result.ratio };
  if (extra.goal !== undefined) row.goal = extra.goal;
  if (extra.note !== undefined) row.note = extra.note;
  return row;
}

/** A result row from interleaved samples (see {@link comparison}). */
export function rowFromSamples(name: string, ours: number[], baseline: string, baselineSamples: number[], extra: { goal?: number; note?: string } = {}): BenchRow {
  return toRow(name, baseline, comparison(ours, baselineSamples), extra);
}

/** V8's `gc()`, for benchmarks that start a sample or a heap figure from a collected heap. */
export function gcFunction(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}
