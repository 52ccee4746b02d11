/**
 * Compaction on real work: each shared real trajectory (mini-swe-agent with
 * DeepSeek, see `../real-trajectories/trajectories.ts`) is cut at 50, 70 and
 * 90 % of its messages (just before an agent step), the part before the cut
 * is compacted to 30 % and to 50 % of its tokens by the provider's own count,
 * and the compacted context is checked for the identifiers the agent used in
 * its next 10 steps (`../real-trajectories/identifiers.ts`; only those that
 * occur in the history before the cut count, since no compaction can keep
 * what was never there). Reported per strategy and budget: recall of all
 * those identifiers and of those not in the last 10 messages before the cut
 * (what a plain suffix does not get for free), the share of valid
 * conversations, the budget used and the share within the budget (both by
 * the provider's count), and the time of a compaction against the baseline:
 * keeping the longest suffix of whole blocks that fits the o200k estimate.
 * An invalid output fails the run.
 */
import type { Message } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { AutoCompaction, type CompactionOptions, PreserveImportantCompaction, PreserveRecentCompaction, SimpleCompaction, SmartCompaction } from "@kosong/soul/compaction";
import { type Compaction } from "@kosong/soul";
import { conversationBlocks, validateConversation } from "@kosong/soul/conversation";
import { TokenCounter } from "@kosong/soul/tokens";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { rowFromSamples } from "../measure.ts";
import { containsIdentifier, identifiersIn, messageText } from "../real-trajectories/identifiers.ts";
import { loadTrajectories, ProviderCount, type Trajectory } from "../real-trajectories/trajectories.ts";

/** What a model that summarises without care for details writes (one line: the scripted provider's DSL). */
export const GENERIC_SUMMARY =
  "The user asked to fix the issue described in the PR description. The assistant explored the repository, read the relevant source files, " +
  "reproduced the problem with a small script, changed the code and ran the tests. Next: verify the fix and submit.";

const genericModel = (): ScriptedChatProvider => new ScriptedChatProvider([`text: ${GENERIC_SUMMARY}`]);

export type Case = { trajectory: Trajectory; cut: number; history: Message[]; share: number; maxTokens: number; provider: ProviderCount };

export type Strategy = { name: string; run(c: Case): Promise<Message[]> };

const counter = new TokenCounter();

/**
 * The baseline: the longest suffix of whole blocks (behind a one-line notice
 * when it does not start with a user message) that fits the budget by the
 * same provider count the strategies are judged by; at least the last block.
 */
export function suffixBaseline(history: readonly Message[], maxTokens: number, count: (messages: readonly Message[]) => number): Message[] {
  const blocks = conversationBlocks(history);
  const withNotice = (kept: Message[]): Message[] =>
    kept[0]?.role === "user" ? kept : [{ role: "user", content: [{ type: "text", text: "<system>Earlier messages were removed.</system>" }] }, ...kept];
  let start = history.length;
  for (let b = blocks.length - 1; b >= 0; b--) {
    const from = blocks[b]!.start;
    if (start < history.length && count(withNotice(history.slice(from))) > maxTokens) break;
    start = from;
  }
  return withNotice(history.slice(start));
}

/**
 * The options a strategy gets: what the soul would pass (the provider's last
 * count before the cut, so budgets are calibrated to the provider's tokens),
 * no file registry (the trajectories use a shell only).
 */
export function options(c: Case, provider?: ScriptedChatProvider): CompactionOptions {
  const report = c.provider.lastReport;
  const providerCount = { inputTokens: report?.prompt ?? 0, messages: report?.at ?? 0 };
  return provider === undefined ? { providerCount } : { provider, providerCount };
}

export const strategies: Strategy[] = [
  { name: "preserve-recent", run: async (c) => (await new PreserveRecentCompaction({ maxTokens: c.maxTokens }).compact(c.history, options(c))).messages },
  { name: "preserve-important", run: async (c) => (await new PreserveImportantCompaction({ maxTokens: c.maxTokens }).compact(c.history, options(c))).messages },
  { name: "smart, no model", run: async (c) => (await new SmartCompaction({ maxTokens: c.maxTokens }).compact(c.history, options(c))).messages },
  {
    name: "smart, generic model summary",
    run: async (c) => (await new SmartCompaction({ maxTokens: c.maxTokens }).compact(c.history, options(c, genericModel()))).messages,
  },
  { name: "simple, no model", run: async (c) => (await new SimpleCompaction({ maxTokens: c.maxTokens }).compact(c.history, options(c))).messages },
  {
    name: "simple, generic model summary",
    run: async (c) => (await new SimpleCompaction({ maxTokens: c.maxTokens }).compact(c.history, options(c, genericModel()))).messages,
  },
  { name: "auto, no model", run: async (c) => (await new AutoCompaction({ maxTokens: c.maxTokens }).compact(c.history, options(c))).messages },
  {
    name: "auto, generic model summary",
    run: async (c) => (await new AutoCompaction({ maxTokens: c.maxTokens }).compact(c.history, options(c, genericModel()))).messages,
  },
];

/** The first index at or after `at` where an agent step starts (an assistant message), so the cut falls just before it. */
function cutBefore(messages: readonly Message[], at: number): number {
  let cut = at;
  while (cut < messages.length && messages[cut]!.role !== "assistant") cut++;
  return cut;
}

/** The identifiers the agent used in its next `steps` steps after `cut` that occur in the history before it, and those of them not in its last 10 messages. */
function usedNext(messages: readonly Message[], cut: number, steps: number): { all: string[]; older: string[] } {
  const next = messages.slice(cut).filter((m) => m.role === "assistant").slice(0, steps);
  const used = new Set<string>();
  for (const message of next) for (const id of identifiersIn(messageText(message))) used.add(id);
  const before = messages.slice(0, cut).map(messageText).join("\n");
  const last = messages.slice(Math.max(0, cut - 10), cut).map(messageText).join("\n");
  const all = [...used].filter((id) => containsIdentifier(before, id));
  return { all, older: all.filter((id) => !containsIdentifier(last, id)) };
}

type Tally = { found: number; total: number; foundOlder: number; totalOlder: number; valid: number; within: number; runs: number; used: number[]; failures: string[] };

const emptyTally = (): Tally => ({ found: 0, total: 0, foundOlder: 0, totalOlder: 0, valid: 0, within: 0, runs: 0, used: [], failures: [] });

const pct = (n: number, of: number): string => (of === 0 ? "n/a" : `${((100 * n) / of).toFixed(1)} %`);

/** The cases: every trajectory (3 in quick mode) cut at 50/70/90 % (70 % only in quick mode), at each budget share. */
export function realTrajectoryCases(quick: boolean): Case[] {
  const trajectories = loadTrajectories();
  const picked = quick ? trajectories.filter((_, i) => i % 10 === 0) : trajectories;
  const cases: Case[] = [];
  for (const trajectory of picked) {
    for (const point of quick ? [0.7] : [0.5, 0.7, 0.9]) {
      const cut = cutBefore(trajectory.messages, Math.round(trajectory.messages.length * point));
      if (cut >= trajectory.messages.length) continue;
      const history = trajectory.messages.slice(0, cut);
      const provider = new ProviderCount(trajectory, cut, counter);
      for (const share of [0.3, 0.5]) cases.push({ trajectory, cut, history, share, maxTokens: Math.floor(provider.count(history) * share), provider });
    }
  }
  return cases;
}

/** One strategy's result on one case, scored into `tally`. */
function score(tally: Tally, c: Case, output: readonly Message[]): void {
  const { all, older } = usedNext(c.trajectory.messages, c.cut, 10);
  const text = output.map(messageText).join("\n");
  tally.runs++;
  if (validateConversation(output).length === 0) tally.valid++;
  const tokens = c.provider.count(output);
  tally.used.push(tokens / c.maxTokens);
  if (tokens <= c.maxTokens) tally.within++;
  for (const id of all) {
    const kept = containsIdentifier(text, id);
    tally.total++;
    if (kept) tally.found++;
    if (older.includes(id)) {
      tally.totalOlder++;
      if (kept) tally.foundOlder++;
    }
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length / 2)]!;
}

/** The figures of one strategy at one budget, as the note and the README table give them. */
export function describeTally(t: Tally): string {
  const failed = t.failures.length === 0 ? "" : `, threw in ${t.failures.length} of ${t.runs + t.failures.length} (${t.failures[0]})`;
  return (
    `recall ${pct(t.found, t.total)}, not in last 10 ${pct(t.foundOlder, t.totalOlder)}, valid ${pct(t.valid, t.runs)}, ` +
    `budget used ${t.runs === 0 ? "n/a" : `median ${(100 * median(t.used)).toFixed(0)} % (max ${(100 * Math.max(...t.used)).toFixed(0)} %)`}, within budget ${pct(t.within, t.runs)}${failed}`
  );
}

const benchmark: Benchmark = {
  name: "real-trajectories",
  async run({ quick }) {
    const cases = realTrajectoryCases(quick);
    if (cases.length === 0) throw new Error("real-trajectories: no trajectories found (set KOSONG_FIXTURES to the fixtures folder)");
    const rows: BenchRow[] = [];
    for (const share of [0.3, 0.5]) {
      const at = cases.filter((c) => c.share === share);
      const baseline = emptyTally();
      const baselineTimes: number[] = [];
      for (const c of at) {
        const begin = performance.now();
        const output = suffixBaseline(c.history, c.maxTokens, (m) => c.provider.count(m));
        baselineTimes.push(performance.now() - begin);
        score(baseline, c, output);
      }
      const label = `${share * 100} % of ${at.length} cuts`;
      rows.push(rowFromSamples(`suffix baseline at ${label}`, baselineTimes, "itself", baselineTimes, { note: describeTally(baseline) }));
      for (const strategy of strategies) {
        const tally = emptyTally();
        const times: number[] = [];
        for (const c of at) {
          const begin = performance.now();
          try {
            const output = await strategy.run(c);
            score(tally, c, output);
          } catch (error) {
            tally.failures.push(error instanceof Error ? error.name : String(error));
          }
          times.push(performance.now() - begin);
        }
        if (tally.valid !== tally.runs) throw new Error(`real-trajectories: ${strategy.name} produced ${tally.runs - tally.valid} invalid conversations`);
        rows.push(rowFromSamples(`${strategy.name} at ${label}`, times, "suffix baseline", baselineTimes, { note: describeTally(tally) }));
      }
    }
    return rows;
  },
};

export default benchmark;
