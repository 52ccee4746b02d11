/**
 * kimi-cli's `SimpleCompaction`: an LLM summary of everything but the most
 * recent messages, which are kept as they are. With options it is also seed
 * 002's variant (keep the last 20, compact only above 60 messages, system
 * messages kept).
 */
import { generate, type Message } from "@kosong/core";
import type { Tokenizer } from "../tokens/index.js";
import { type Budget, budgetOf } from "./budget-options.js";
import type { Compaction, CompactionOptions, CompactionResult } from "./compaction.js";
import { CompactionError } from "./compaction-error.js";
import { fitCompacted } from "./fit-to-budget.js";
import { COMPACTION_SYSTEM_PROMPT, SIMPLE_SUMMARY_PROMPT, summaryMessage, summaryRequest } from "./summary-request.js";

/** Options of {@link SimpleCompaction}. */
export interface SimpleCompactionOptions {
  /**
   * How many user and assistant messages to keep verbatim at the end, with
   * the tool results between them (kimi-cli: 2, the default; 20 keeps more context).
   * Tool messages are not counted, so the cut never separates a result from
   * its call.
   */
  keepRecent?: number;
  /** Compact only when the history has more than this many messages (e.g. 60); default 0. */
  compactAbove?: number;
  /** Keep system messages of the summarised part, before the summary; default true. */
  keepSystemMessages?: boolean;
  /** The summary instructions appended to the transcript (default {@link SIMPLE_SUMMARY_PROMPT}). */
  prompt?: string;
  /**
   * An optional budget in tokens: when the summary and the kept messages
   * exceed it, the oldest kept messages go first, then what is left is cut
   * (as {@link PreserveRecentCompaction} does). Without it, as in kimi-cli,
   * only message counts matter.
   */
  maxTokens?: number;
  /** How the budget's tokens are counted (default o200k_base). */
  tokenizer?: Tokenizer;
}

/** How {@link prepareSimpleCompaction} splits a history. */
export interface SimpleCompactionPlan {
  /** The messages to summarise; empty when there is nothing to compact. */
  toCompact: Message[];
  /** System messages of `toCompact` that are kept before the summary. */
  system: Message[];
  /** The recent messages kept as they are. */
  toPreserve: Message[];
}

/**
 * The pure part of {@link SimpleCompaction}: which messages are summarised
 * and which are kept. Nothing is compacted when the history is not above
 * `compactAbove` messages or holds no more than `keepRecent` user and
 * assistant messages.
 */
export function prepareSimpleCompaction(history: readonly Message[], options: SimpleCompactionOptions = {}): SimpleCompactionPlan {
  const { keepRecent = 2, compactAbove = 0, keepSystemMessages = true } = options;
  const nothing: SimpleCompactionPlan = { toCompact: [], system: [], toPreserve: [...history] };
  if (history.length <= compactAbove) return nothing;
  let start = history.length;
  let counted = 0;
  while (start > 0 && counted < keepRecent) {
    start--;
    if (history[start]!.role === "user" || history[start]!.role === "assistant") counted++;
  }
  // The kept part starts at a user or assistant message, so never with tool results cut from their call.
  if (counted < keepRecent) return nothing;
  const older = history.slice(0, start);
  const system = keepSystemMessages ? older.filter((m) => m.role === "system") : [];
  const toCompact = keepSystemMessages ? older.filter((m) => m.role !== "system") : older;
  if (!toCompact.some(hasSomethingToSummarise)) return nothing;
  return { toCompact, system, toPreserve: history.slice(start) };
}

function hasSomethingToSummarise(message: Message): boolean {
  return (message.tool_calls?.length ?? 0) > 0 || message.content.some((part) => part.type !== "think" && (part.type !== "text" || part.text.trim() !== ""));
}

/**
 * Summarises all but the recent messages with the given provider (core's
 * `generate`, no tools) and returns `[system messages kept, summary, recent
 * messages]`. The summary is a user message that starts with
 * {@link COMPACTION_OUTPUT_PREFIX}, think parts dropped.
 *
 * @throws CompactionError without a provider when there is something to compact.
 * @throws ChatProviderError from the provider (an empty summary is `APIEmptyResponseError`).
 */
export class SimpleCompaction implements Compaction {
  readonly name = "simple";
  readonly #options: SimpleCompactionOptions;
  readonly #budget: Budget | null;

  constructor(options: SimpleCompactionOptions = {}) {
    for (const key of ["keepRecent", "compactAbove"] as const) {
      const value = options[key];
      if (value !== undefined && !(Number.isInteger(value) && value >= 0)) {
        throw new CompactionError(`SimpleCompaction: ${key} must be a non-negative integer, got ${value}.`);
      }
    }
    this.#options = { ...options };
    this.#budget = options.maxTokens === undefined ? null : budgetOf("SimpleCompaction", { maxTokens: options.maxTokens, tokenizer: options.tokenizer });
  }

  async compact(history: readonly Message[], options: CompactionOptions = {}): Promise<CompactionResult> {
    const plan = prepareSimpleCompaction(history, this.#options);
    if (plan.toCompact.length === 0) {
      const notes = ["Nothing to summarise."];
      if (this.#budget !== null) return { ...fitCompacted(history, plan.toPreserve, 0, 0, notes, this.#budget), usage: null };
      return { messages: plan.toPreserve, usage: null, details: { kept: history.length, dropped: 0, stubs: 0, filesRecovered: [], summarized: false, notes } };
    }
    if (options.provider === undefined) throw new CompactionError("SimpleCompaction needs a provider to write its summary.");
    const request = summaryRequest(plan.toCompact, this.#options.prompt ?? SIMPLE_SUMMARY_PROMPT, options.instruction);
    const result = await generate(options.provider, COMPACTION_SYSTEM_PROMPT, [], [request], { signal: options.signal });
    const messages = [...plan.system, summaryMessage(result.message.content), ...plan.toPreserve];
    const details = { kept: plan.system.length + plan.toPreserve.length, dropped: plan.toCompact.length, stubs: 0, filesRecovered: [], summarized: true, notes: [] };
    if (this.#budget === null) return { messages, usage: result.usage, details };
    const fit = fitCompacted(history, messages, plan.system.length + 1, plan.toCompact.length, [], this.#budget);
    return { messages: fit.messages, usage: result.usage, details: fit.details };
  }
}
