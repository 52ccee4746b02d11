/**
 * The content bench: the same cuts and budgets as `real-trajectories.ts`
 * (each shared real trajectory cut at 50, 70 and 90 % of its messages, the
 * part before the cut compacted to 30 % and 50 % of its tokens by the
 * provider's count), but scored on the content the next 10 agent steps need
 * verbatim (`../real-trajectories/content.ts`): values, edit anchors,
 * identifiers in kept content (not counting an identifier index), and the
 * user's requests word for word. Reported per strategy and budget, against
 * two references measured in the same run: keeping the newest messages that
 * fit (the baseline), and a clairvoyant choice of whole messages that knows
 * what the next steps use (an upper bound for any choice of whole messages).
 * An invalid output of a strategy fails the run.
 */
import type { Message } from "@kosong/core";
import { PreserveImportantCompaction } from "@kosong/soul/compaction";
import { validateConversation } from "@kosong/soul/conversation";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { rowFromSamples } from "../measure.ts";
import { type Case, options, realTrajectoryCases, type Strategy, strategies, suffixBaseline } from "./real-trajectories.ts";
import { containsValue, keptContentText, type Needs, needsAfter, normalise } from "../real-trajectories/content.ts";
import { containsIdentifier, identifiersIn, messageText } from "../real-trajectories/identifiers.ts";
import { anchorMiss, formatMisses, identifierMiss, type Miss, summariseIdentifierMisses, valueMiss } from "../real-trajectories/misses.ts";
import { categoryTable } from "../real-trajectories/miss-categories.ts";

/** The content tally of one strategy at one budget. */
export type ContentTally = {
  values: [number, number];
  anchors: [number, number];
  identifiers: [number, number];
  /** Cases whose first request is kept verbatim, and cases with every request kept. */
  task: [number, number];
  allRequests: [number, number];
  valid: number;
  within: number;
  runs: number;
};

/** A tally with nothing counted yet. */
export const emptyTally = (): ContentTally => ({ values: [0, 0], anchors: [0, 0], identifiers: [0, 0], task: [0, 0], allRequests: [0, 0], valid: 0, within: 0, runs: 0 });

/** The identifiers the next 10 steps use that the history before the cut holds (as `real-trajectories.ts` counts them). */
function identifiersNext(c: Case): string[] {
  const next = c.trajectory.messages.slice(c.cut).filter((m) => m.role === "assistant").slice(0, 10);
  const used = new Set<string>();
  for (const message of next) for (const id of identifiersIn(messageText(message))) used.add(id);
  const before = c.history.map(messageText).join("\n");
  return [...used].filter((id) => containsIdentifier(before, id));
}

const needsCache = new WeakMap<Case, { needs: Needs; identifiers: string[] }>();

function needsOf(c: Case): { needs: Needs; identifiers: string[] } {
  let found = needsCache.get(c);
  if (found === undefined) needsCache.set(c, (found = { needs: needsAfter(c.trajectory.messages, c.cut, 10), identifiers: identifiersNext(c) }));
  return found;
}

const add = (pair: [number, number], hit: boolean): void => {
  pair[1]++;
  if (hit) pair[0]++;
};

/** Scores one output of one case into `tally`; each missed value, anchor and identifier goes to `misses` when given (see `--misses`). */
export function scoreContent(tally: ContentTally, c: Case, output: readonly Message[], misses?: Miss[]): void {
  const { needs, identifiers } = needsOf(c);
  // Everything is matched on kept content: an identifier index lists names, it does not keep a test name or an error text for the next steps.
  const raw = output.map(keptContentText).join("\n");
  const text = normalise(raw);
  tally.runs++;
  if (validateConversation(output).length === 0) tally.valid++;
  if (c.provider.count(output) <= c.maxTokens) tally.within++;
  const count = (m: Message): number => c.provider.count([m]);
  for (const value of needs.values) {
    const kept = containsValue(raw, value);
    add(tally.values, kept);
    if (!kept) misses?.push(valueMiss(c.trajectory.id, c.history, output, value, count));
  }
  for (const anchor of needs.anchors) {
    const kept = text.includes(anchor);
    add(tally.anchors, kept);
    if (!kept) misses?.push(anchorMiss(c.trajectory.id, c.history, output, anchor, count));
  }
  for (const id of identifiers) {
    const kept = containsIdentifier(raw, id);
    add(tally.identifiers, kept);
    if (!kept) misses?.push(identifierMiss(c.trajectory.id, c.history, output, id, count));
  }
  if (needs.requests.length > 0) {
    add(tally.task, text.includes(needs.requests[0]!));
    add(tally.allRequests, needs.requests.every((r) => text.includes(r)));
  }
}

/**
 * The clairvoyant reference: the user's requests, then whole messages chosen
 * greedily by how many still-missing needed items (values, anchors,
 * identifiers) they hold per provider token, while they fit the budget; in
 * their original order. Not a valid conversation in general (it is a bound,
 * not a strategy).
 */
export function clairvoyant(c: Case): Message[] {
  const { needs, identifiers } = needsOf(c);
  const items: Array<(m: { raw: string; text: string }) => boolean> = [
    ...needs.values.map((v) => (m: { raw: string }) => containsValue(m.raw, v)),
    ...needs.anchors.map((a) => (m: { text: string }) => m.text.includes(a)),
    ...identifiers.map((id) => (m: { raw: string }) => containsIdentifier(m.raw, id)),
  ];
  const covers = c.history.map((message) => {
    const raw = messageText(message);
    const view = { raw, text: normalise(raw) };
    return new Set(items.flatMap((item, i) => (item(view) ? [i] : [])));
  });
  const costs = c.history.map((message) => c.provider.count([message]));
  const chosen = new Set<number>();
  let used = 0;
  c.history.forEach((message, i) => {
    const cost = costs[i]!;
    if (message.role === "user" && used + cost <= c.maxTokens) {
      chosen.add(i);
      used += cost;
    }
  });
  const covered = new Set<number>();
  for (const i of chosen) for (const item of covers[i]!) covered.add(item);
  for (;;) {
    let best = -1;
    let bestGain = 0;
    c.history.forEach((_, i) => {
      if (chosen.has(i)) return;
      const cost = costs[i]!;
      if (used + cost > c.maxTokens) return;
      let fresh = 0;
      for (const item of covers[i]!) if (!covered.has(item)) fresh++;
      const gain = fresh / Math.max(1, cost);
      if (fresh > 0 && gain > bestGain) {
        best = i;
        bestGain = gain;
      }
    });
    if (best < 0) break;
    chosen.add(best);
    used += costs[best]!;
    for (const item of covers[best]!) covered.add(item);
  }
  return c.history.filter((_, i) => chosen.has(i));
}

const pct = ([n, of]: [number, number]): string => (of === 0 ? "n/a" : `${((100 * n) / of).toFixed(1)} %`);
const ofN = (pair: [number, number]): string => `${pct(pair)} of ${pair[1]}`;

/** The figures of one tally, as the note and the README table give them. */
export function describeContent(t: ContentTally): string {
  return (
    `values ${ofN(t.values)}, edit anchors ${ofN(t.anchors)}, identifiers in kept content ${ofN(t.identifiers)}, ` +
    `task verbatim ${pct(t.task)} (every request ${pct(t.allRequests)}), valid ${pct([t.valid, t.runs])}, within budget ${pct([t.within, t.runs])}`
  );
}

/** The strategies of `real-trajectories.ts`, plus preserve-important without an identifier index. */
const contentStrategies: Strategy[] = [
  ...strategies,
  {
    name: "preserve-important, indexShare 0",
    run: async (c) => (await new PreserveImportantCompaction({ maxTokens: c.maxTokens, indexShare: 0 }).compact(c.history, options(c))).messages,
  },
];

const benchmark: Benchmark = {
  name: "trajectory-content",
  async run({ quick, misses: printMisses }) {
    const cases = realTrajectoryCases(quick);
    if (cases.length === 0) throw new Error("trajectory-content: no trajectories found (set KOSONG_FIXTURES to the fixtures folder)");
    const rows: BenchRow[] = [];
    for (const share of [0.3, 0.5]) {
      const at = cases.filter((c) => c.share === share);
      const label = `${share * 100} % of ${at.length} cuts`;
      const baseline = emptyTally();
      const baselineTimes: number[] = [];
      for (const c of at) {
        const begin = performance.now();
        const output = suffixBaseline(c.history, c.maxTokens, (m) => c.provider.count(m));
        baselineTimes.push(performance.now() - begin);
        scoreContent(baseline, c, output);
      }
      rows.push(rowFromSamples(`keep-newest baseline at ${label}`, baselineTimes, "itself", baselineTimes, { note: describeContent(baseline) }));
      const bound = emptyTally();
      const boundTimes: number[] = [];
      for (const c of at) {
        const begin = performance.now();
        const output = clairvoyant(c);
        boundTimes.push(performance.now() - begin);
        scoreContent(bound, c, output);
      }
      rows.push(rowFromSamples(`clairvoyant whole messages at ${label}`, boundTimes, "keep-newest baseline", baselineTimes, { note: describeContent(bound) }));
      for (const strategy of contentStrategies) {
        const tally = emptyTally();
        const times: number[] = [];
        const missed: Miss[] | undefined = printMisses === true ? [] : undefined;
        for (const c of at) {
          const begin = performance.now();
          const output = await strategy.run(c);
          times.push(performance.now() - begin);
          scoreContent(tally, c, output, missed);
        }
        if (missed !== undefined) {
          const name = `${strategy.name} at ${share * 100} %`;
          const categories = missed.flatMap((m) => (m.category === undefined ? [] : [m.category]));
          for (const line of [...formatMisses(name, missed), ...categoryTable(name, categories), ...summariseIdentifierMisses(name, missed)]) process.stderr.write(`${line}\n`);
        }
        if (tally.valid !== tally.runs) throw new Error(`trajectory-content: ${strategy.name} produced ${tally.runs - tally.valid} invalid conversations`);
        rows.push(rowFromSamples(`${strategy.name} at ${label}`, times, "keep-newest baseline", baselineTimes, { note: describeContent(tally) }));
      }
    }
    return rows;
  },
};

export default benchmark;
