/**
 * kimi-cli's `SimpleCompaction`: an LLM summary of everything but the most
 * recent messages, which are kept as they are. With options it is also seed
 * 002's variant (keep the last 20, compact only above 60 messages, system
 * messages kept).
 */
import type { Message, TokenUsage } from "@kosong/core";
import { o200kTokenizer, type Tokenizer } from "../tokens/index.js";
import { type Budget, budgetOf, scaledBudget } from "./budget-options.js";
import type { Compaction, CompactionOptions, CompactionResult } from "./compaction.js";
import { CompactionError } from "./compaction-error.js";
import { fitCompacted } from "./fit-to-budget.js";
import { neverLonger } from "./never-longer.js";
import { extractiveSummary, taskTokens } from "./extractive-summary.js";
import { isConversationTurn } from "./message-importance.js";
import { modelSummary } from "./model-summary.js";
import { checkedModelSummary } from "./model-summary-check.js";
import { summarisedConversation } from "./summarised-conversation.js";
import { SIMPLE_SUMMARY_PROMPT } from "./summary-request.js";

/** Options of {@link SimpleCompaction}. */
export interface SimpleCompactionOptions {
  /**
   * How many user and assistant messages to keep verbatim at the end, with
   * the tool results between them (kimi-cli: 2, the default; 20 keeps more context).
   * Tool messages and checkpoint markers (`<system>CHECKPOINT n</system>`)
   * are not counted, so the cut never separates a result from its call and
   * D-Mail's markers never take the place of the model's last answer.
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
    if (isConversationTurn(history[start]!)) counted++;
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
 * {@link COMPACTION_OUTPUT_PREFIX}, think parts dropped. Without a provider,
 * or when the model's summary is unusable (blank, only whitespace, only tool
 * calls, error-like, an acknowledgement only) or the model fails, the
 * summary is {@link extractiveSummary}'s, with a note in the details: a
 * compaction never wipes the conversation nor ends the turn for it. With a
 * `maxTokens` budget, an index of the summarised identifiers follows the
 * model's summary (up to 15 % of the budget) and the verbatim tail grows
 * backwards into the room left.
 *
 * @throws only an abort (the compaction's signal).
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
    await (this.#options.tokenizer ?? o200kTokenizer).load?.();
    const budget = this.#budget === null ? null : scaledBudget("SimpleCompaction", this.#budget, history, options);
    const counting = budget ?? budgetOf("SimpleCompaction", { maxTokens: 1, tokenizer: this.#options.tokenizer });
    return neverLonger(history, await this.#compact(history, options, budget, counting), counting, budget);
  }

  async #compact(history: readonly Message[], options: CompactionOptions, budget: Budget | null, counting: Budget): Promise<CompactionResult> {
    const plan = prepareSimpleCompaction(history, this.#options);
    if (plan.toCompact.length === 0) {
      const notes = ["Nothing to summarise."];
      if (budget !== null) return { ...fitCompacted(history, plan.toPreserve, 0, 0, notes, budget), usage: null };
      return { messages: plan.toPreserve, usage: null, details: { kept: history.length, dropped: 0, stubs: 0, filesRecovered: [], summarized: false, notes } };
    }
    const start = history.length - plan.toPreserve.length;
    const notes: string[] = [];
    let text: string | null = null;
    let usage: TokenUsage | null = null;
    if (options.provider === undefined) notes.push("No provider: extractive summary.");
    else {
      const summary = await modelSummary(options.provider, plan.toCompact, this.#options.prompt ?? SIMPLE_SUMMARY_PROMPT, options);
      usage = summary.usage;
      if (summary.text === null) notes.push(summary.note);
      else {
        // Without a budget the summary may take at most what it replaces.
        const checked = checkedModelSummary(summary.text, plan.toCompact, plan.toPreserve, budget?.maxTokens ?? Number.POSITIVE_INFINITY, counting);
        notes.push(...checked.notes);
        text = checked.text;
      }
    }
    if (text === null) {
      // Without a budget the extractive summary takes a fifth of what it summarises, between 1,000 and 8,000 tokens.
      const compacted = counting.counter.count(plan.toCompact);
      const taskCounted = taskTokens(plan.toCompact, counting.tokenizer);
      const summaryTokens = Math.min(8000, Math.max(1000, Math.floor(compacted / 5)));
      const task = budget === null ? 0 : Math.min(taskTokens(plan.toCompact, budget.tokenizer) + 64, Math.floor(budget.maxTokens * 0.6));
      const room =
        budget === null
          ? Math.max(summaryTokens, Math.min(taskCounted + 64, compacted))
          : Math.max(Math.floor(budget.maxTokens / 4), budget.maxTokens - budget.counter.count([...plan.system, ...plan.toPreserve]) - 40, task);
      // Never longer than what it replaces.
      text = extractiveSummary(plan.toCompact, { maxTokens: Math.min(room, Math.max(compacted, taskCounted)), tokenizer: counting.tokenizer, files: options.files?.recent() ?? [], kept: plan.toPreserve });
    }
    const fit = summarisedConversation(history, start, text, budget, notes, this.#options.keepSystemMessages ?? true);
    return { messages: fit.messages, usage, details: fit.details };
  }
}
