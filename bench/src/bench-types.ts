/**
 * Types shared by the benchmark runner and every benchmark file.
 */

/** One result line: our implementation against a baseline measured in the same run. */
export type BenchRow = {
  name: string;
  /** Median time of ours, in milliseconds. */
  ours_ms: number;
  /** What the baseline is (e.g. "bare for-await loop"). */
  baseline: string;
  /** Median time of the baseline, in milliseconds. */
  baseline_ms: number;
  /** ours / baseline: the median of per-round ratios (see measure.ts), close to ours_ms / baseline_ms. */
  ratio: number;
  /** The ratio we aim to stay at or below, when there is one. */
  goal?: number;
  note?: string;
};

/** Options every benchmark receives. */
export type BenchOptions = {
  /** Few rounds, finishing in a few seconds (CI, tests); full runs otherwise. */
  quick: boolean;
};

/** A benchmark file's default export. */
export type Benchmark = {
  name: string;
  /**
   * Whether what the benchmark measures against is on this machine (e.g.
   * another agent's binary); when false, `run` reports no rows. Absent:
   * always.
   */
  available?(): boolean;
  run(opts: BenchOptions): Promise<BenchRow[]>;
};
