/**
 * Context quality: how much of what matters survives a compaction to 30 % of
 * the original tokens, for each strategy that needs no LLM, next to
 * Kode-cli's original algorithms (seed 004) on the same generated histories.
 * Planted facts: user constraints, file paths, error messages, their fixes,
 * decisions. Also the share of valid conversations and of outputs within
 * the budget. Timing rows compare each strategy with its Kode-cli
 * counterpart (informational: ours counts tokens with o200k, Kode-cli counts
 * messages). An invalid output from one of ours fails the run.
 */
import type { Message } from "@kosong/core";
import { type Compaction } from "@kosong/soul";
import { PreserveImportantCompaction, PreserveRecentCompaction, SmartCompaction } from "@kosong/soul/compaction";
import { validateConversation } from "@kosong/soul/conversation";
import { estimateTokens } from "@kosong/soul/tokens";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { type AgentHistory, agentHistory, type Fact, readableText } from "../context-quality/agent-histories.ts";
import { kodePreserveImportant, kodePreserveRecent, kodeSmartCompression } from "../context-quality/kode-baselines.ts";
import { compare, toRow } from "../measure.ts";

type Quality = { facts: number; total: number; valid: number; within: number; runs: number; byKind: Map<Fact["kind"], [number, number]> };

type Pair = {
  name: string;
  ours: (maxTokens: number) => Compaction;
  kodeName: string;
  kode: (messages: readonly Message[], maxTokens: number) => Message[];
  goal: number | null;
};

const pairs: Pair[] = [
  { name: "preserve-recent", ours: (maxTokens) => new PreserveRecentCompaction({ maxTokens }), kodeName: "preserveRecentMessages", kode: kodePreserveRecent, goal: null },
  { name: "preserve-important", ours: (maxTokens) => new PreserveImportantCompaction({ maxTokens }), kodeName: "preserveImportantMessages", kode: (m) => kodePreserveImportant(m), goal: 0.9 },
  { name: "smart", ours: (maxTokens) => new SmartCompaction({ maxTokens }), kodeName: "smartCompressionStrategy", kode: (m) => kodeSmartCompression(m), goal: 0.9 },
];

function emptyQuality(): Quality {
  return { facts: 0, total: 0, valid: 0, within: 0, runs: 0, byKind: new Map() };
}

function score(quality: Quality, history: AgentHistory, output: readonly Message[], maxTokens: number): void {
  const text = readableText(output);
  quality.runs++;
  if (validateConversation(output).length === 0) quality.valid++;
  if (estimateTokens(output) <= maxTokens) quality.within++;
  for (const fact of history.facts) {
    const kept = text.includes(fact.text);
    quality.total++;
    if (kept) quality.facts++;
    const [k, n] = quality.byKind.get(fact.kind) ?? [0, 0];
    quality.byKind.set(fact.kind, [k + (kept ? 1 : 0), n + 1]);
  }
}

const pct = (n: number, of: number): string => `${((100 * n) / of).toFixed(0)} %`;

function describe(q: Quality): string {
  const kinds = [...q.byKind].map(([kind, [k, n]]) => `${kind} ${pct(k, n)}`).join(", ");
  return `facts ${pct(q.facts, q.total)} (${kinds}), valid ${pct(q.valid, q.runs)}, within budget ${pct(q.within, q.runs)}`;
}

const benchmark: Benchmark = {
  name: "context-quality",
  async run({ quick }) {
    const histories = Array.from({ length: quick ? 3 : 20 }, (_, i) => agentHistory(i + 1, quick ? 4 : 8));
    const budgets = histories.map((h) => Math.floor(estimateTokens(h.messages) * 0.3));
    const rows: BenchRow[] = [];
    for (const pair of pairs) {
      const ours = emptyQuality();
      const kode = emptyQuality();
      for (const [i, history] of histories.entries()) {
        const maxTokens = budgets[i]!;
        score(ours, history, (await pair.ours(maxTokens).compact(history.messages)).messages, maxTokens);
        score(kode, history, pair.kode(history.messages, maxTokens), maxTokens);
      }
      if (ours.valid !== ours.runs) throw new Error(`context-quality: ${pair.name} produced ${ours.runs - ours.valid} invalid conversations`);
      const share = ours.facts / ours.total;
      const goal = pair.goal === null ? "" : share >= pair.goal ? ` (goal >= ${pair.goal * 100} %: pass)` : ` (goal >= ${pair.goal * 100} %: MISS)`;
      const timing = await compare(
        async () => {
          for (const [i, h] of histories.entries()) await pair.ours(budgets[i]!).compact(h.messages);
        },
        () => {
          for (const [i, h] of histories.entries()) pair.kode(h.messages, budgets[i]!);
        },
        quick ? { warmup: 1, rounds: 3 } : { warmup: 2, rounds: 9 },
      );
      rows.push(
        toRow(`${pair.name} at 30 % of ${histories.length} histories' tokens`, `Kode-cli ${pair.kodeName}`, timing, {
          note: `ours: ${describe(ours)}${goal}; Kode-cli: ${describe(kode)}; time ratio informational (ours counts o200k tokens)`,
        }),
      );
    }
    return rows;
  },
};

export default benchmark;
