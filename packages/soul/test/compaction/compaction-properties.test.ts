/**
 * The property every strategy promises: whatever the history (parallel tool
 * calls, think parts, images, long tool outputs, steering between steps,
 * Chinese text), the output is a valid conversation, within the budget when
 * the budget can hold the smallest output (a one-line notice), and says so
 * (`withinBudget: false` and a note) when it cannot. Seeded; the seed is
 * printed, and `COMPACTION_SEED=<n>` replays a run.
 */
import { textPart } from "@kosong/core";
import { MockChatProvider } from "@kosong/core/testing";
import { type Compaction } from "@kosong/soul";
import { AUTO_SUMMARY_SECTIONS, AutoCompaction, type CompactionOptions, droppedNotice, PreserveImportantCompaction, PreserveRecentCompaction, SimpleCompaction, SmartCompaction } from "@kosong/soul/compaction";
import { validateConversation } from "@kosong/soul/conversation";
import { charsPerTokenTokenizer, estimateTokens, o200kTokenizer, type Tokenizer } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";
import { randomHistory, seededRandom } from "./helpers/random-history.js";

const SEED = Number(process.env.COMPACTION_SEED ?? Math.floor(Math.random() * 2 ** 31));
const GOOD = AUTO_SUMMARY_SECTIONS.map((section) => `## ${section}\nNone.`).join("\n");

type Make = (maxTokens: number, tokenizer: Tokenizer) => [Compaction, CompactionOptions];
const strategies: Array<[string, Make]> = [
  ["simple", (maxTokens, tokenizer) => [new SimpleCompaction({ keepRecent: 4, maxTokens, tokenizer }), { provider: new MockChatProvider([textPart("A summary.")]) }]],
  ["preserve-recent", (maxTokens, tokenizer) => [new PreserveRecentCompaction({ maxTokens, tokenizer }), {}]],
  ["preserve-important", (maxTokens, tokenizer) => [new PreserveImportantCompaction({ maxTokens, tokenizer }), {}]],
  ["smart (extractive)", (maxTokens, tokenizer) => [new SmartCompaction({ maxTokens, tokenizer }), {}]],
  ["smart (LLM)", (maxTokens, tokenizer) => [new SmartCompaction({ maxTokens, tokenizer }), { provider: new MockChatProvider([textPart("An LLM summary.")]) }]],
  ["auto", (maxTokens, tokenizer) => [new AutoCompaction({ maxTokens, tokenizer }), { provider: new MockChatProvider([textPart(GOOD)]) }]],
];

async function check(histories: number, tokenizer: Tokenizer, seed: number): Promise<Record<string, { runs: number; valid: number; within: number; unmeetable: number }>> {
  const random = seededRandom(seed);
  const stats: Record<string, { runs: number; valid: number; within: number; unmeetable: number }> = {};
  for (let h = 0; h < histories; h++) {
    const history = randomHistory(random);
    const snapshot = JSON.stringify(history);
    expect(validateConversation(history), `seed ${seed} history ${h} is valid input`).toEqual([]);
    const total = estimateTokens(history, { tokenizer });
    const floor = estimateTokens([droppedNotice(history.length)], { tokenizer });
    const budgets = [8, Math.floor(total * 0.05), Math.floor(total * 0.3), Math.floor(total * 0.7)].map((b) => Math.max(1, b));
    for (const [name, make] of strategies) {
      const s = (stats[name] ??= { runs: 0, valid: 0, within: 0, unmeetable: 0 });
      for (const maxTokens of budgets) {
        const [strategy, options] = make(maxTokens, tokenizer);
        const result = await strategy.compact(history, options);
        const where = `seed ${seed}, history ${h}, ${name}, budget ${maxTokens}`;
        s.runs++;
        expect(validateConversation(result.messages), where).toEqual([]);
        s.valid++;
        const tokens = estimateTokens(result.messages, { tokenizer });
        expect(result.details?.withinBudget, where).toBe(tokens <= maxTokens);
        if (tokens <= maxTokens) s.within++;
        else {
          expect(maxTokens, `${where}: over budget (${tokens}) though the budget holds a notice`).toBeLessThan(floor);
          expect(result.details!.notes.join(" "), where).toMatch(/cannot be met/);
          s.unmeetable++;
        }
      }
    }
    expect(JSON.stringify(history), `seed ${seed} history ${h} was mutated`).toBe(snapshot);
  }
  return stats;
}

describe("compaction properties", () => {
  it("1,000 random histories x every strategy x 4 budgets: all valid, within budget wherever a notice fits (chars/4)", async () => {
    console.log(`compaction property seed: ${SEED} (replay with COMPACTION_SEED=${SEED})`);
    const stats = await check(1000, charsPerTokenTokenizer, SEED);
    console.table(stats);
    for (const s of Object.values(stats)) {
      expect(s.valid).toBe(s.runs);
      expect(s.within + s.unmeetable).toBe(s.runs);
    }
  });

  it("the same on 50 histories with the o200k tokenizer", async () => {
    const stats = await check(50, o200kTokenizer, SEED + 1);
    for (const s of Object.values(stats)) expect(s.valid).toBe(s.runs);
  });
});
