/**
 * The conservative retention strategy: the recent messages verbatim plus a
 * summary of everything before them. Kode-cli's summary said how many
 * messages there were and guessed topics; without a provider this one
 * extracts the facts (requests, files, errors, decisions), with a provider
 * an LLM writes it.
 */
import { extractText, generate, type Message, type TokenUsage } from "@kosong/core";
import { type Budget, type BudgetOptions, budgetOf } from "./budget-options.js";
import type { Compaction, CompactionOptions, CompactionResult } from "./compaction.js";
import { CompactionError } from "./compaction-error.js";
import { extractiveSummary } from "./extractive-summary.js";
import { fitCompacted } from "./fit-to-budget.js";
import { recentTailStart } from "./recent-blocks.js";
import { COMPACTION_SYSTEM_PROMPT, SIMPLE_SUMMARY_PROMPT, summaryMessage, summaryRequest } from "./summary-request.js";
import { truncateText } from "./truncate-text.js";

/** Options of {@link SmartCompaction}. */
export interface SmartCompactionOptions extends BudgetOptions {
  /** The share of `maxTokens` that the recent messages kept verbatim may take (default 0.5). */
  recentShare?: number;
  /** At most this many user and assistant messages are kept verbatim (default 10, as Kode-cli). */
  keepRecent?: number;
  /** The instructions of an LLM summary (default {@link SIMPLE_SUMMARY_PROMPT}). */
  prompt?: string;
}

/**
 * Keeps the most recent blocks that fit `recentShare` of the budget (at most
 * `keepRecent` user and assistant messages, at least the last block) and
 * replaces everything before them with one summary message: written by the
 * provider when one is given (cut to the budget if it runs long), extracted
 * from the messages otherwise. System messages of the summarised part are
 * kept in front. If the result is still over budget (a huge last block), it
 * is fitted like {@link PreserveRecentCompaction} does.
 */
export class SmartCompaction implements Compaction {
  readonly name = "smart";
  readonly #budget: Budget;
  readonly #recentShare: number;
  readonly #keepRecent: number;
  readonly #prompt: string;

  constructor(options: SmartCompactionOptions) {
    this.#budget = budgetOf("SmartCompaction", options);
    this.#recentShare = options.recentShare ?? 0.5;
    this.#keepRecent = options.keepRecent ?? 10;
    this.#prompt = options.prompt ?? SIMPLE_SUMMARY_PROMPT;
    if (!(this.#recentShare > 0 && this.#recentShare < 1)) {
      throw new CompactionError(`SmartCompaction: recentShare must be in (0, 1), got ${this.#recentShare}.`);
    }
  }

  async compact(history: readonly Message[], options: CompactionOptions = {}): Promise<CompactionResult> {
    const { maxTokens, counter, tokenizer } = this.#budget;
    const before = counter.count(history);
    if (before <= maxTokens) {
      const details = { kept: history.length, dropped: 0, stubs: 0, filesRecovered: [], summarized: false, notes: [], tokensAfter: before, withinBudget: true };
      return { messages: [...history], usage: null, details };
    }
    const start = recentTailStart(history, counter, maxTokens * this.#recentShare, this.#keepRecent);
    if (start === 0) return { ...fitCompacted(history, [...history], 0, 0, [], this.#budget), usage: null };
    const older = history.slice(0, start);
    const system = older.filter((m) => m.role === "system");
    const toSummarise = older.filter((m) => m.role !== "system");
    const tail = history.slice(start);
    const room = maxTokens - counter.count(tail) - counter.count(system) - counter.message(summaryMessage([]));
    const summaryBudget = Math.max(room, Math.floor(maxTokens * (1 - this.#recentShare) * 0.5));

    let text: string;
    let usage: TokenUsage | null = null;
    const notes: string[] = [];
    if (options.provider !== undefined) {
      const request = summaryRequest(toSummarise, this.#prompt, options.instruction);
      const result = await generate(options.provider, COMPACTION_SYSTEM_PROMPT, [], [request], { signal: options.signal });
      usage = result.usage;
      text = truncateText(extractText(result.message), summaryBudget, tokenizer);
    } else {
      text = extractiveSummary(toSummarise, { maxTokens: summaryBudget, tokenizer, files: options.files?.recent() ?? [] });
      notes.push("Extractive summary (no provider).");
    }
    const summary = summaryMessage([{ type: "text", text: text === "" ? "(nothing to keep)" : text }]);
    const fit = fitCompacted(history, [...system, summary, ...tail], system.length + 1, toSummarise.length, notes, this.#budget);
    return { messages: fit.messages, usage, details: fit.details };
  }
}
