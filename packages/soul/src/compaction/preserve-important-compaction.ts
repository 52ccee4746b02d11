/**
 * The balanced retention strategy: what matters plus the recent messages,
 * within a token budget. Kode-cli's version kept every "important" message
 * and the last five whatever they cost, matched "error" inside other words,
 * and cut tool pairs apart; this one stubs bulky old tool outputs first,
 * drops whole blocks in order of importance, and counts tokens.
 */
import type { Message } from "@kosong/core";
import { type ConversationBlock, conversationBlocks } from "../conversation/index.js";
import { type Budget, type BudgetOptions, budgetOf } from "./budget-options.js";
import type { Compaction, CompactionResult } from "./compaction.js";
import { CompactionError } from "./compaction-error.js";
import { type FitAction, fitToBudget } from "./fit-to-budget.js";
import { isErrorResult, isImportantMessage } from "./message-importance.js";
import { recentBlockStart } from "./recent-blocks.js";

/** Options of {@link PreserveImportantCompaction}. */
export interface PreserveImportantCompactionOptions extends BudgetOptions {
  /** User and assistant messages at the end that are kept before anything important (default 5, as Kode-cli). */
  keepRecent?: number;
  /** A tool output larger than this many tokens is bulky: it becomes a stub before messages are dropped (default 200). */
  bulkyToolOutputTokens?: number;
}

/**
 * Fits the conversation into `maxTokens` giving things up in this order:
 *
 * 1. bulky tool outputs (not errors) before the recent part become `[tool output elided: N tokens]`, oldest first;
 * 2. unimportant blocks before the recent part are dropped, oldest first;
 * 3. bulky tool outputs of the recent part become stubs, oldest first;
 * 4. recent blocks but the last are dropped, oldest first;
 * 5. important ones (see {@link isImportantMessage}; also a tool round with an error result) are dropped, oldest first;
 * 6. what is left is shrunk (every tool output stubbed, texts cut), oldest first, and dropped as a last resort.
 *
 * Each step runs only while the conversation is over budget. Needs no provider.
 */
export class PreserveImportantCompaction implements Compaction {
  readonly name = "preserve-important";
  readonly #budget: Budget;
  readonly #keepRecent: number;
  readonly #bulky: number;

  constructor(options: PreserveImportantCompactionOptions) {
    this.#budget = budgetOf("PreserveImportantCompaction", options);
    this.#keepRecent = options.keepRecent ?? 5;
    this.#bulky = options.bulkyToolOutputTokens ?? 200;
    if (!(Number.isInteger(this.#keepRecent) && this.#keepRecent >= 0)) {
      throw new CompactionError(`PreserveImportantCompaction: keepRecent must be a non-negative integer, got ${this.#keepRecent}.`);
    }
  }

  async compact(history: readonly Message[]): Promise<CompactionResult> {
    const blocks = conversationBlocks(history).map((block, index) => ({ ...block, index }));
    const recent = recentBlockStart(blocks, Math.max(1, this.#keepRecent));
    const important = (b: ConversationBlock): boolean =>
      isImportantMessage(history[b.start]!) || history.slice(b.start + 1, b.end).some(isErrorResult);
    const bulkyOutputs = (part: ReadonlyArray<ConversationBlock>): FitAction[] =>
      part.flatMap((b) =>
        history.slice(b.start, b.end).flatMap((message, offset) =>
          message.role === "tool" && !isErrorResult(message) && this.#budget.counter.message(message) > this.#bulky ? [{ stub: b.start + offset }] : [],
        ),
      );
    const drops = (part: ReadonlyArray<{ index: number }>): FitAction[] => part.map((b) => ({ drop: b.index }));
    const old = blocks.slice(0, recent).filter((b) => b.role !== "system");
    const plan = [
      ...bulkyOutputs(blocks.slice(0, recent)),
      ...drops(old.filter((b) => !important(b))),
      ...bulkyOutputs(blocks.slice(recent)),
      ...drops(blocks.slice(recent, -1).filter((b) => b.role !== "system")),
      ...drops(old.filter(important)),
    ];
    const fit = fitToBudget(history, plan, this.#budget);
    return { messages: fit.messages, usage: null, details: fit.details };
  }
}
