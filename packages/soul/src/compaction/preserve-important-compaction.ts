/**
 * The balanced retention strategy: what matters plus the recent messages,
 * within a token budget. Kode-cli's version kept every "important" message
 * and the last five whatever they cost, matched "error" inside other words,
 * and cut tool pairs apart; this one stubs bulky old tool outputs first,
 * drops whole blocks in order of importance, and counts tokens.
 */
import type { Message } from "@kosong/core";
import { conversationBlocks } from "../conversation/index.js";
import { type Budget, type BudgetOptions, budgetOf } from "./budget-options.js";
import type { Compaction, CompactionResult } from "./compaction.js";
import { CompactionError } from "./compaction-error.js";
import { fitToBudget } from "./fit-to-budget.js";
import { isErrorResult, isImportantMessage } from "./message-importance.js";
import { recentBlockStart } from "./recent-blocks.js";

/** Options of {@link PreserveImportantCompaction}. */
export interface PreserveImportantCompactionOptions extends BudgetOptions {
  /** User and assistant messages at the end that are kept before anything important (default 5, as Kode-cli). */
  keepRecent?: number;
  /** A tool output older than the recent part and larger than this many tokens becomes a stub first (default 200). */
  bulkyToolOutputTokens?: number;
}

/**
 * Fits the conversation into `maxTokens` giving things up in this order:
 *
 * 1. bulky tool outputs (not errors) before the recent part become `[tool output elided: N tokens]`, oldest first;
 * 2. unimportant blocks before the recent part are dropped, oldest first;
 * 3. recent blocks but the last are dropped, oldest first;
 * 4. important ones (see {@link isImportantMessage}; also a tool round with an error result) are dropped, oldest first;
 * 5. what is left is shrunk (stubs, cut texts), system messages first.
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
    const blocks = conversationBlocks(history);
    const recent = recentBlockStart(blocks, Math.max(1, this.#keepRecent));
    const important = (start: number, end: number): boolean =>
      isImportantMessage(history[start]!) || history.slice(start + 1, end).some(isErrorResult);
    const old = blocks.slice(0, recent).map((block, index) => ({ block, index, important: important(block.start, block.end) }));
    const stubOrder: number[] = [];
    for (const { block } of old) {
      for (let index = block.start; index < block.end; index++) {
        const message = history[index]!;
        if (message.role === "tool" && !isErrorResult(message) && this.#budget.counter.message(message) > this.#bulky) stubOrder.push(index);
      }
    }
    const droppable = old.filter(({ block }) => block.role !== "system");
    const dropOrder = [
      ...droppable.filter((b) => !b.important).map((b) => b.index),
      ...blocks.slice(recent, -1).flatMap((block, i) => (block.role === "system" ? [] : [recent + i])),
      ...droppable.filter((b) => b.important).map((b) => b.index),
    ];
    const fit = fitToBudget(history, { stubOrder, dropOrder }, this.#budget);
    return { messages: fit.messages, usage: null, details: fit.details };
  }
}
