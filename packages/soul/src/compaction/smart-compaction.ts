/**
 * The conservative retention strategy: the recent messages verbatim plus a
 * summary of everything before them. Kode's summary said how many
 * messages there were and guessed topics; without a provider this one
 * extracts the facts (requests, files, errors, decisions), with a provider
 * an LLM writes it.
 */
import type { Message, TokenUsage } from "@kosong/core";
import { type Budget, type BudgetOptions, budgetOf, scaledBudget } from "./budget-options.js";
import type { Compaction, CompactionOptions, CompactionResult } from "./compaction.js";
import { CompactionError } from "./compaction-error.js";
import { extractiveSummary, taskTokens } from "./extractive-summary.js";
import { fitCompacted } from "./fit-to-budget.js";
import { neverLonger } from "./never-longer.js";
import { recentTailStart } from "./recent-blocks.js";
import { condensedNewestFirst, ShownLines } from "./repeated-lines.js";
import { modelSummary } from "./model-summary.js";
import { checkedModelSummary } from "./model-summary-check.js";
import { summarisedConversation } from "./summarised-conversation.js";
import { SIMPLE_SUMMARY_PROMPT, summaryMessage } from "./summary-request.js";

/** Options of {@link SmartCompaction}. */
export interface SmartCompactionOptions extends BudgetOptions {
  /** The share of `maxTokens` held for the recent messages kept verbatim before the summary is written (default 0.6); the tail then grows into whatever the summary leaves. */
  recentShare?: number;
  /**
   * At most this many user and assistant messages are kept verbatim before the summary is written (default 10); the
   * summary's excerpts of older rounds come first, and the tail then grows into whatever room they leave.
   */
  keepRecent?: number;
  /** The instructions of an LLM summary (default {@link SIMPLE_SUMMARY_PROMPT}). */
  prompt?: string;
}

/**
 * Keeps the most recent blocks that fit `recentShare` of the budget (at most
 * `keepRecent` user and assistant messages, 10 by default, at least the last
 * block: older rounds are worth more as excerpts chosen by use than verbatim) and
 * replaces everything before them with one summary message: written by the
 * provider when one is given (cut to the budget if it runs long, followed
 * by an index of the identifiers it summarised in the room left), extracted
 * from the messages otherwise (see {@link extractiveSummary}). A summary
 * that is blank, only tool calls, error-like or an acknowledgement, or a
 * model that fails, gives the extractive summary instead, with a note.
 * Then the verbatim tail grows backwards into the room the summary left.
 * System messages of the summarised part are kept in front. If the result
 * is still over budget (a huge last block), it is fitted like
 * {@link PreserveRecentCompaction} does.
 */
export class SmartCompaction implements Compaction {
  readonly name = "smart";
  readonly #budget: Budget;
  readonly #recentShare: number;
  readonly #keepRecent: number;
  readonly #prompt: string;

  constructor(options: SmartCompactionOptions) {
    this.#budget = budgetOf("SmartCompaction", options);
    this.#recentShare = options.recentShare ?? 0.6;
    this.#keepRecent = options.keepRecent ?? 10;
    this.#prompt = options.prompt ?? SIMPLE_SUMMARY_PROMPT;
    if (!(this.#recentShare > 0 && this.#recentShare < 1)) {
      throw new CompactionError(`SmartCompaction: recentShare must be in (0, 1), got ${this.#recentShare}.`);
    }
  }

  async compact(history: readonly Message[], options: CompactionOptions = {}): Promise<CompactionResult> {
    await this.#budget.tokenizer.load?.();
    const budget = scaledBudget("SmartCompaction", this.#budget, history, options);
    return neverLonger(history, await this.#compact(history, options, budget), budget, budget);
  }

  async #compact(history: readonly Message[], options: CompactionOptions, budget: Budget): Promise<CompactionResult> {
    const { maxTokens, counter, tokenizer } = budget;
    const before = counter.count(history);
    if (before <= maxTokens) {
      const details = { kept: history.length, dropped: 0, stubs: 0, filesRecovered: [], summarized: false, notes: [], tokensAfter: Math.ceil(before * budget.scale), withinBudget: true };
      return { messages: [...history], usage: null, details };
    }
    const start = recentTailStart(history, counter, maxTokens * this.#recentShare, this.#keepRecent);
    if (start === 0) return { ...fitCompacted(history, [...history], 0, 0, [], budget), usage: null };
    const older = history.slice(0, start);
    const system = older.filter((m) => m.role === "system");
    const toSummarise = older.filter((m) => m.role !== "system");
    const tail = history.slice(start);
    // The tail's tool outputs are counted without the lines its newer outputs show again (see summarisedConversation).
    const shown = condensedNewestFirst(tail, new ShownLines(), (m) => counter.message(m));
    const room = maxTokens - counter.count(shown) - counter.count(system) - counter.message(summaryMessage([]));
    // The task (the first request) is kept in full: the recent messages give way to it, up to 60 % of the budget.
    const taskCounted = taskTokens(toSummarise, tokenizer);
    const task = Math.min(taskCounted + 64, Math.floor(maxTokens * 0.6));
    const summaryBudget = Math.max(room, Math.floor(maxTokens * (1 - this.#recentShare) * 0.5), task);

    let text: string | null = null;
    let usage: TokenUsage | null = null;
    const notes: string[] = [];
    if (options.provider !== undefined) {
      const summary = await modelSummary(options.provider, toSummarise, this.#prompt, options);
      usage = summary.usage;
      if (summary.text === null) notes.push(summary.note);
      else {
        const checked = checkedModelSummary(summary.text, toSummarise, tail, summaryBudget, budget);
        notes.push(...checked.notes);
        text = checked.text;
      }
    } else {
      notes.push("Extractive summary (no provider).");
    }
    // Never longer than what it replaces (counted only when the extractive summary is needed).
    text ??= extractiveSummary(toSummarise, {
      maxTokens: Math.min(summaryBudget, Math.max(counter.count(toSummarise), taskCounted)),
      tokenizer,
      files: options.files?.recent() ?? [],
      kept: tail,
    });
    const fit = summarisedConversation(history, start, text, budget, notes);
    return { messages: fit.messages, usage, details: fit.details };
  }
}
