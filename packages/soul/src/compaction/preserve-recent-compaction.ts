/**
 * The aggressive retention strategy: the most recent messages that fit the
 * budget, nothing else. Kode's version kept the last N messages whatever
 * they cost and cut tool pairs apart; this one counts tokens and cuts only
 * between whole blocks.
 */
import type { Message } from "@kosong/core";
import { conversationBlocks } from "../conversation/index.js";
import { type Budget, type BudgetOptions, budgetOf, scaledBudget } from "./budget-options.js";
import type { Compaction, CompactionOptions, CompactionResult } from "./compaction.js";
import { fitToBudget } from "./fit-to-budget.js";
import { neverLonger } from "./never-longer.js";

/** Options of {@link PreserveRecentCompaction}. */
export type PreserveRecentCompactionOptions = BudgetOptions;

/**
 * Keeps the longest suffix of the conversation that fits `maxTokens`, cut
 * only between blocks (an assistant message with its tool results, or a
 * user message), behind a notice of how many messages were removed. When
 * even the last block does not fit, its tool outputs become stubs and its
 * texts are cut. Needs no provider.
 */
export class PreserveRecentCompaction implements Compaction {
  readonly name = "preserve-recent";
  readonly #budget: Budget;

  constructor(options: PreserveRecentCompactionOptions) {
    this.#budget = budgetOf("PreserveRecentCompaction", options);
  }

  async compact(history: readonly Message[], options: CompactionOptions = {}): Promise<CompactionResult> {
    await this.#budget.tokenizer.load?.();
    const budget = scaledBudget("PreserveRecentCompaction", this.#budget, history, options);
    const blocks = conversationBlocks(history);
    const fit = fitToBudget(history, blocks.slice(0, -1).map((_, index) => ({ drop: index })), budget);
    return neverLonger(history, { messages: fit.messages, usage: null, details: fit.details }, budget, budget);
  }
}
