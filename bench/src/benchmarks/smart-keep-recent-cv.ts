/**
 * How the tuned `keepRecent` of `SmartCompaction` (10: at most that many
 * user and assistant messages stay verbatim before the summary is written)
 * would likely fare on trajectories it was not tuned on: three-fold
 * cross-validation over the shared real trajectories, stratified by edit
 * anchors (only 15 occur, in a few trajectories: the trajectories ordered by
 * their anchors, most first, then by name, are dealt to the folds in turn).
 * For each fold, `keepRecent` is chosen from a grid on the other two thirds
 * by the content bench's score (the mean of the rates of values, edit
 * anchors and identifiers in kept content that occur at all, at 30 % and at
 * 50 % of the tokens; see `trajectory-content.ts`), then scored on the
 * held-out third, beside the default 10 and the best value in hindsight on
 * that third. Reported per fold and pooled over the held-out thirds; the time
 * column is one smart compaction against the keep-newest baseline.
 */
import type { Message } from "@kosong/core";
import { SmartCompaction } from "@kosong/soul/compaction";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { rowFromSamples } from "../measure.ts";
import { type Case, options, realTrajectoryCases, suffixBaseline } from "./real-trajectories.ts";
import { type ContentTally, emptyTally, scoreContent } from "./trajectory-content.ts";
import { needsAfter } from "../real-trajectories/content.ts";

/** The values of `keepRecent` tried. */
const GRID = [4, 6, 8, 10, 12, 16];
/** The default under test. */
const DEFAULT = 10;
const FOLDS = 3;

/** Adds `from` into `into`. */
function addTally(into: ContentTally, from: ContentTally): void {
  for (const key of ["values", "anchors", "identifiers", "task", "allRequests"] as const) {
    into[key][0] += from[key][0];
    into[key][1] += from[key][1];
  }
  into.valid += from.valid;
  into.within += from.within;
  into.runs += from.runs;
}

const rate = ([n, of]: [number, number]): number => (of === 0 ? 1 : n / of);

/** The score a choice is made by: the mean of the content rates over both budgets (each budget's tally apart; a kind with no item left out). */
function score(byShare: ReadonlyMap<number, ContentTally>): number {
  const rates: number[] = [];
  for (const t of byShare.values()) for (const pair of [t.values, t.anchors, t.identifiers]) if (pair[1] > 0) rates.push(pair[0] / pair[1]);
  return rates.reduce((a, b) => a + b, 0) / Math.max(1, rates.length);
}

/** Tallies per (keepRecent, trajectory, share). */
type Results = Map<number, Map<string, Map<number, ContentTally>>>;

/** The pooled tallies by share of the trajectories in `ids` for `keep`. */
function pooled(results: Results, keep: number, ids: ReadonlySet<string>): Map<number, ContentTally> {
  const out = new Map<number, ContentTally>();
  for (const [id, byShare] of results.get(keep)!) {
    if (!ids.has(id)) continue;
    for (const [share, t] of byShare) {
      let into = out.get(share);
      if (into === undefined) out.set(share, (into = emptyTally()));
      addTally(into, t);
    }
  }
  return out;
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}`;

/** `values / anchors / identifiers` at each share, as the note gives them. */
function describe(byShare: ReadonlyMap<number, ContentTally>): string {
  return [...byShare]
    .sort(([a], [b]) => a - b)
    .map(([share, t]) => `${share * 100} %: ${pct(rate(t.values))} / ${pct(rate(t.anchors))} (of ${t.anchors[1]}) / ${pct(rate(t.identifiers))}`)
    .join("; ");
}

const benchmark: Benchmark = {
  name: "smart-keep-recent-cv",
  async run({ quick }) {
    const cases = realTrajectoryCases(quick);
    if (cases.length === 0) throw new Error("smart-keep-recent-cv: no trajectories found (set KOSONG_FIXTURES to the fixtures folder)");
    // Stratified folds: trajectories with more anchors first (as the default scores them), dealt in turn.
    const anchors = new Map<string, number>();
    for (const c of cases) anchors.set(c.trajectory.id, (anchors.get(c.trajectory.id) ?? 0) + anchorCount(c));
    const ids = [...anchors.keys()].sort((a, b) => anchors.get(b)! - anchors.get(a)! || a.localeCompare(b));
    const results: Results = new Map();
    const times: number[] = [];
    const baselineTimes: number[] = [];
    for (const keep of GRID) {
      const byTrajectory = new Map<string, Map<number, ContentTally>>();
      for (const c of cases) {
        const begin = performance.now();
        const output: Message[] = (await new SmartCompaction({ maxTokens: c.maxTokens, keepRecent: keep }).compact(c.history, options(c))).messages;
        if (keep === DEFAULT) times.push(performance.now() - begin);
        if (keep === DEFAULT) baselineTimes.push(timeBaseline(c));
        let byShare = byTrajectory.get(c.trajectory.id);
        if (byShare === undefined) byTrajectory.set(c.trajectory.id, (byShare = new Map()));
        let tally = byShare.get(c.share);
        if (tally === undefined) byShare.set(c.share, (tally = emptyTally()));
        scoreContent(tally, c, output);
      }
      results.set(keep, byTrajectory);
    }
    const rows: BenchRow[] = [];
    const heldOut = { chosen: new Map<number, ContentTally>(), fixed: new Map<number, ContentTally>() };
    const addAll = (into: Map<number, ContentTally>, from: Map<number, ContentTally>): void => {
      for (const [share, t] of from) {
        if (!into.has(share)) into.set(share, emptyTally());
        addTally(into.get(share)!, t);
      }
    };
    for (let fold = 0; fold < FOLDS; fold++) {
      const test = new Set(ids.filter((_, i) => i % FOLDS === fold));
      const train = new Set(ids.filter((id) => !test.has(id)));
      // Ties go to the value nearer the default.
      const ranked = [...GRID].sort((a, b) => score(pooled(results, b, train)) - score(pooled(results, a, train)) || Math.abs(a - DEFAULT) - Math.abs(b - DEFAULT));
      const chosen = ranked[0]!;
      const best = [...GRID].sort((a, b) => score(pooled(results, b, test)) - score(pooled(results, a, test)))[0]!;
      const onTest = pooled(results, chosen, test);
      addAll(heldOut.chosen, onTest);
      addAll(heldOut.fixed, pooled(results, DEFAULT, test));
      const note =
        `chosen on ${train.size} trajectories: keepRecent ${chosen} (train score ${pct(score(pooled(results, chosen, train)))}); ` +
        `held-out ${test.size}: chosen ${pct(score(onTest))} [${describe(onTest)}], ` +
        `default ${DEFAULT} ${pct(score(pooled(results, DEFAULT, test)))}, best in hindsight keepRecent ${best} ${pct(score(pooled(results, best, test)))}`;
      rows.push(rowFromSamples(`fold ${fold + 1} of ${FOLDS}`, times, "keep-newest baseline", baselineTimes, { note }));
    }
    const all = new Set(ids);
    const note =
      `held-out thirds pooled: keepRecent chosen per fold ${pct(score(heldOut.chosen))} [${describe(heldOut.chosen)}]; ` +
      `default ${DEFAULT} ${pct(score(heldOut.fixed))} [${describe(heldOut.fixed)}]; ` +
      `default ${DEFAULT} on all ${ids.length} (the in-sample figure) ${pct(score(pooled(results, DEFAULT, all)))}; ` +
      `grid ${GRID.map((k) => `${k}: ${pct(score(pooled(results, k, all)))}`).join(", ")}`;
    rows.push(rowFromSamples("held-out thirds pooled", times, "keep-newest baseline", baselineTimes, { note }));
    return rows;
  },
};

/** The edit anchors the next steps after `c`'s cut need (see `trajectory-content.ts`), counted at one budget only. */
function anchorCount(c: Case): number {
  return c.share === 0.3 ? needsAfter(c.trajectory.messages, c.cut, 10).anchors.length : 0;
}

/** Time of the keep-newest baseline on `c`, in milliseconds. */
function timeBaseline(c: Case): number {
  const begin = performance.now();
  suffixBaseline(c.history, c.maxTokens, (m) => c.provider.count(m));
  return performance.now() - begin;
}

export default benchmark;
