/**
 * Kode's auto-compact, made dependable: a structured LLM summary of
 * eight sections, a dedicated compact model with the main model as
 * fallback, recovery of recently touched files, and a ladder that never
 * leaves the conversation uncompacted: compact model -> main model ->
 * SmartCompaction (extractive) -> plain truncation with a notice.
 */
import { type ChatProvider, extractText, generate, isAbortError, type Message, sumTokenUsage, type TokenUsage } from "@kosong/core";
import { type Budget, type BudgetOptions, budgetOf, scaledBudget } from "./budget-options.js";
import type { Compaction, CompactionDetails, CompactionOptions, CompactionResult } from "./compaction.js";
import { CompactionError } from "./compaction-error.js";
import { AUTO_SUMMARY_PROMPT, checkSummary } from "./auto-summary-prompt.js";
import { type FileReader, recoverFiles } from "./file-recovery.js";
import { fitCompacted } from "./fit-to-budget.js";
import { neverLonger } from "./never-longer.js";
import { checkedModelSummary } from "./model-summary-check.js";
import { PreserveRecentCompaction } from "./preserve-recent-compaction.js";
import { recentTailStart } from "./recent-blocks.js";
import { SmartCompaction } from "./smart-compaction.js";
import { COMPACTION_SYSTEM_PROMPT, summaryMessage, summaryRequest } from "./summary-request.js";
import { truncateText } from "./truncate-text.js";

/** A model used only for summaries (Kode's `compact` model pointer). */
export interface CompactModel {
  provider: ChatProvider;
  /** Its context window in tokens: it is used only when the history fits 90 % of it. */
  contextSize: number;
}

/** Options of {@link AutoCompaction}. */
export interface AutoCompactionOptions extends BudgetOptions {
  /** The dedicated summary model; without it the main model (the `provider` of each call) summarises. */
  compactModel?: CompactModel;
  /**
   * Reads recently touched files for recovery (the strategy does no I/O
   * itself). Default: the `readFile` of each call's options (the soul passes
   * one); without either no file is recovered.
   */
  readFile?: FileReader;
  /** At most this many files recovered (default 5). */
  maxRecoveredFiles?: number;
  /** At most this many tokens of each recovered file (default 10,000). */
  maxTokensPerFile?: number;
  /** User and assistant messages kept verbatim after the summary (default 2, as kimi-cli), within a quarter of the budget. */
  keepRecent?: number;
  /** After an LLM rung fails, it is skipped for this many compactions (default 3), so a broken model is not retried on every step. */
  failureCooldown?: number;
  /**
   * The rungs after the LLM ones, tried in order until one succeeds (default:
   * SmartCompaction's extractive summary, then PreserveRecentCompaction's
   * plain truncation with a notice, both with this budget). They get no provider.
   */
  fallbacks?: readonly Compaction[];
}

type Rung = "compact model" | "main model";

/**
 * Compacts with a structured summary ({@link AUTO_SUMMARY_PROMPT}) of all
 * but the recent messages, followed by the recovered files and the recent
 * messages, within `maxTokens`. A summary is rejected (see
 * {@link checkSummary}) when empty, error-like, an acknowledgement only,
 * truncated at the output limit, or missing sections; a provider error
 * counts as a rejection. Then the next rung is tried. Aborts propagate.
 */
export class AutoCompaction implements Compaction {
  readonly name = "auto";
  readonly #budget: Budget;
  readonly #options: AutoCompactionOptions;
  readonly #cooldown: number;
  readonly #skip = new Map<Rung, number>();

  constructor(options: AutoCompactionOptions) {
    this.#budget = budgetOf("AutoCompaction", options);
    this.#options = { ...options };
    this.#cooldown = options.failureCooldown ?? 3;
    const size = options.compactModel?.contextSize;
    if (size !== undefined && !(size > 0)) throw new CompactionError(`AutoCompaction: compactModel.contextSize must be positive, got ${size}.`);
  }

  async compact(history: readonly Message[], options: CompactionOptions = {}): Promise<CompactionResult> {
    await this.#budget.tokenizer.load?.();
    const budget = scaledBudget("AutoCompaction", this.#budget, history, options);
    return neverLonger(history, await this.#compact(history, options, budget), budget, budget);
  }

  async #compact(history: readonly Message[], options: CompactionOptions, budget: Budget): Promise<CompactionResult> {
    const { maxTokens, counter } = budget;
    const start = recentTailStart(history, counter, Math.floor(maxTokens / 4), this.#options.keepRecent ?? 2);
    const older = history.slice(0, start);
    const tail = history.slice(start);
    const system = older.filter((m) => m.role === "system");
    const toSummarise = older.filter((m) => m.role !== "system");
    const notes: string[] = [];
    const rejected: string[] = [];
    const usages: Array<TokenUsage | null> = [];
    if (toSummarise.length > 0) {
      for (const [rung, provider] of this.#rungs(history, options.provider, options.explicit === true, notes)) {
        const summary = await this.#summarise(rung, provider, toSummarise, options, { notes, rejected }, usages);
        if (summary === null) continue;
        // A summary that leaves no room for the recent messages is cut (at a line boundary) rather than them.
        const room = Math.max(maxTokens - counter.count(tail) - counter.count(system) - 50, Math.floor(maxTokens / 2));
        const heading = `Context compressed using the ${rung} (${provider.modelName}).`;
        const checked = checkedModelSummary(summary, toSummarise, tail, room - budget.tokenizer.count(heading) - 2, budget);
        notes.push(...checked.notes);
        if (checked.text === null) {
          rejected.push(`${rung} (${provider.modelName}): ${checked.notes.at(-1) ?? "refused"}`);
          continue;
        }
        const text = truncateText(`${heading}\n\n${checked.text}`, room, budget.tokenizer);
        const head = [...system, summaryMessage([{ type: "text", text }])];
        return this.#assemble(history, budget, head, tail, toSummarise.length, options, notes, rejected, sumTokenUsage(...usages));
      }
    }
    return this.#fallBack(history, options, notes, rejected, usages);
  }

  /**
   * The LLM rungs to try, in order, skipping a compact model the history does
   * not fit and, unless the compaction was asked for explicitly, those on
   * cooldown (an automatic trigger does not retry a broken model every step;
   * the user's `/compact` does).
   */
  #rungs(history: readonly Message[], main: ChatProvider | undefined, explicit: boolean, notes: string[]): Array<[Rung, ChatProvider]> {
    if (explicit) this.#skip.clear();
    for (const [rung, left] of this.#skip) {
      if (left <= 0) this.#skip.delete(rung);
      else this.#skip.set(rung, left - 1);
    }
    const rungs: Array<[Rung, ChatProvider]> = [];
    const compactModel = this.#options.compactModel;
    if (compactModel !== undefined) {
      const tokens = this.#budget.counter.count(history);
      if (tokens > compactModel.contextSize * 0.9) notes.push(`History (${tokens} tokens) does not fit 90 % of the compact model's window.`);
      else rungs.push(["compact model", compactModel.provider]);
    }
    if (main !== undefined) rungs.push(["main model", main]);
    return rungs.filter(([rung]) => {
      const skipped = this.#skip.has(rung);
      if (skipped) notes.push(`Skipped the ${rung}: it failed recently.`);
      return !skipped;
    });
  }

  /** One LLM summary, or null (with a note, a line in `log.rejected`, and the rung put on cooldown) when it fails or is rejected. */
  async #summarise(
    rung: Rung,
    provider: ChatProvider,
    messages: readonly Message[],
    options: CompactionOptions,
    log: { notes: string[]; rejected: string[] },
    usages: Array<TokenUsage | null>,
  ): Promise<string | null> {
    let reason: string;
    try {
      const request = summaryRequest(messages, AUTO_SUMMARY_PROMPT, options.instruction);
      const result = await generate(provider, COMPACTION_SYSTEM_PROMPT, [], [request], { signal: options.signal });
      usages.push(result.usage);
      const text = extractText(result.message).trim();
      const rejection = checkSummary(text, result.finishReason);
      if (rejection === null) return text;
      reason = `${rejection} summary`;
    } catch (error) {
      if (isAbortError(error) || options.signal?.aborted) throw error;
      reason = error instanceof Error ? error.message : String(error);
    }
    log.notes.push(`The ${rung} (${provider.modelName}) failed: ${reason}.`);
    log.rejected.push(`${rung} (${provider.modelName}): ${reason}`);
    this.#skip.set(rung, this.#cooldown);
    return null;
  }

  /** The summary head, recovered files and the tail, fitted to the budget. */
  async #assemble(
    history: readonly Message[],
    budget: Budget,
    head: Message[],
    tail: Message[],
    summarised: number,
    options: CompactionOptions,
    notes: string[],
    rejected: string[],
    usage: TokenUsage,
  ): Promise<CompactionResult> {
    const { maxTokens, counter, tokenizer } = budget;
    let recovered: Message[] = [];
    let paths: string[] = [];
    const read = this.#options.readFile ?? options.readFile;
    if (read !== undefined && options.files !== undefined) {
      const room = maxTokens - counter.count(head) - counter.count(tail);
      const files = await recoverFiles(options.files.recent(), tail, {
        read,
        maxFiles: this.#options.maxRecoveredFiles ?? 5,
        maxTokensPerFile: this.#options.maxTokensPerFile ?? 10_000,
        maxTokens: room,
        tokenizer,
        counter,
        signal: options.signal,
      });
      recovered = files.messages;
      paths = files.paths;
      notes.push(...files.skipped.map((why) => `File not recovered: ${why}.`));
    }
    const fit = fitCompacted(history, [...head, ...recovered, ...tail], head.length + recovered.length, summarised, notes, budget);
    const details: CompactionDetails = { ...fit.details, filesRecovered: paths.filter((_, i) => fit.messages.includes(recovered[i]!)), rejectedSummaries: rejected };
    return { messages: fit.messages, usage, details };
  }

  /** The non-LLM rungs, in order; the last one's failure propagates. */
  async #fallBack(history: readonly Message[], options: CompactionOptions, notes: string[], rejected: string[], usages: Array<TokenUsage | null>): Promise<CompactionResult> {
    const usage = usages.length === 0 ? null : sumTokenUsage(...usages);
    const budget = { maxTokens: this.#budget.maxTokens, tokenizer: this.#budget.tokenizer };
    const fallbacks = this.#options.fallbacks ?? [new SmartCompaction(budget), new PreserveRecentCompaction(budget)];
    for (const [index, fallback] of fallbacks.entries()) {
      try {
        const result = await fallback.compact(history, { files: options.files, signal: options.signal, tokenScale: options.tokenScale, providerCount: options.providerCount });
        notes.push(`Fell back to ${fallback.name}.`);
        const details = result.details ?? { kept: 0, dropped: 0, stubs: 0, filesRecovered: [], summarized: false, notes: [] };
        return { messages: result.messages, usage, details: { ...details, notes: [...notes, ...details.notes], rejectedSummaries: rejected, fallback: fallback.name } };
      } catch (error) {
        if (isAbortError(error) || options.signal?.aborted || index === fallbacks.length - 1) throw error;
        notes.push(`${fallback.name} failed: ${error instanceof Error ? error.message : String(error)}.`);
      }
    }
    throw new CompactionError("AutoCompaction: every rung failed and no fallback is configured.");
  }
}
