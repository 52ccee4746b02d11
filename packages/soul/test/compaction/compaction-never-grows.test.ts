/**
 * A compaction never returns more tokens than it was given: every strategy,
 * every budget (tiny, fitting, larger than the history), and every kind of
 * bad summary a model can write (blank, longer than the history, a refusal,
 * an acknowledgement, only tool calls, a structured one far too long).
 * Seeded; `COMPACTION_SEED=<n>` replays a run.
 */
import { type ChatProvider, textPart, toolCall } from "@kosong/core";
import { MockChatProvider, ScriptedChatProvider } from "@kosong/core/testing";
import {
  AUTO_SUMMARY_SECTIONS,
  AutoCompaction,
  type Compaction,
  PreserveImportantCompaction,
  PreserveRecentCompaction,
  SimpleCompaction,
  SmartCompaction,
} from "@kosong/soul/compaction";
import { charsPerTokenTokenizer, estimateTokens } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";
import { prose } from "./helpers/histories.js";
import { randomHistory, seededRandom } from "./helpers/random-history.js";

const SEED = Number(process.env.COMPACTION_SEED ?? Math.floor(Math.random() * 2 ** 31));
const tokenizer = charsPerTokenTokenizer;

/** What a model may answer a summary request with, the bad ones first. */
const summaries: Array<[string, (historyTokens: number) => ChatProvider]> = [
  ["blank", () => new MockChatProvider([textPart("")])],
  ["longer than the history", (n) => new MockChatProvider([textPart(prose(n, "verbose"))])],
  ["structured and longer than the history", (n) => new MockChatProvider([textPart(AUTO_SUMMARY_SECTIONS.map((s) => `## ${s}\n${prose(Math.ceil(n / 4), "x")}`).join("\n"))])],
  ["a refusal", () => new MockChatProvider([textPart("I'm sorry, I can't help with that.")])],
  ["an acknowledgement", () => new MockChatProvider([textPart("Sure, here it is.")])],
  ["only tool calls", () => new MockChatProvider([toolCall("t", "Read", { path: "/x" })])],
  ["a failing model", () => new ScriptedChatProvider([])],
  ["a short good one", () => new MockChatProvider([textPart(AUTO_SUMMARY_SECTIONS.map((s) => `## ${s}\nNone.`).join("\n"))])],
];

const strategies: Array<[string, (maxTokens: number) => Compaction]> = [
  ["simple", () => new SimpleCompaction({ tokenizer })],
  ["simple with a budget", (maxTokens) => new SimpleCompaction({ maxTokens, tokenizer })],
  ["preserve-recent", (maxTokens) => new PreserveRecentCompaction({ maxTokens, tokenizer })],
  ["preserve-important", (maxTokens) => new PreserveImportantCompaction({ maxTokens, tokenizer })],
  ["smart", (maxTokens) => new SmartCompaction({ maxTokens, tokenizer })],
  ["auto", (maxTokens) => new AutoCompaction({ maxTokens, tokenizer })],
];

describe("a compaction never grows the context", () => {
  it(`100 random histories x every strategy x 4 budgets x no model and 8 kinds of summary (seed ${SEED})`, async () => {
    const random = seededRandom(SEED);
    for (let h = 0; h < 100; h++) {
      const history = randomHistory(random);
      const before = estimateTokens(history, { tokenizer });
      const summary = summaries[h % summaries.length]!;
      for (const maxTokens of [1, Math.floor(before * 0.1), Math.floor(before * 0.5), before * 2].map((b) => Math.max(1, b))) {
        for (const [name, make] of strategies) {
          for (const provider of [undefined, summary[1](before)]) {
            const result = await make(maxTokens).compact(history, { provider });
            const after = estimateTokens(result.messages, { tokenizer });
            expect(after, `seed ${SEED}, history ${h}, ${name}, budget ${maxTokens}, ${provider === undefined ? "no model" : summary[0]}`).toBeLessThanOrEqual(before);
          }
        }
      }
    }
  });
});
