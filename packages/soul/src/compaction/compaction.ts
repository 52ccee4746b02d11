/**
 * The compaction contract: a strategy takes the conversation (without the
 * system prompt) and returns a shorter one that is still a valid
 * conversation for every provider. The soul calls it when the context nears
 * its limit, after a context-overflow error, and on `soul.compact()`, then
 * replaces the context with the result (through `clear()`, so the old
 * conversation stays as a rotation that `restoreRotation` brings back).
 *
 * Strategies are pure over their input apart from the LLM call that some of
 * them make: all I/O (the context, the file registry's reads) happens in the
 * soul or in what the caller passes in.
 */
import type { ChatProvider, Message, TokenUsage } from "@kosong/core";
import type { FileReader } from "./file-recovery.js";
import type { FileRegistry } from "./file-registry.js";

/** What a strategy is given besides the history. */
export interface CompactionOptions {
  /** The agent's model, for strategies that summarise with an LLM; absent when none is available. */
  provider?: ChatProvider;
  /** Aborts the compaction (and its LLM call). */
  signal?: AbortSignal;
  /** The user's extra instruction (`/compact <instruction>`), for LLM-backed strategies. */
  instruction?: string;
  /**
   * True when the user or host asked for this compaction (`soul.compact()`),
   * false or absent for the automatic triggers. A strategy that rests a
   * failing model for a while (`AutoCompaction`'s `failureCooldown`) tries it
   * again when asked explicitly.
   */
  explicit?: boolean;
  /** The session's record of files read and written, for strategies that recover files. */
  files?: FileRegistry;
  /** Reads the registry's files for strategies that recover them (the soul passes one; a strategy's own reader wins). */
  readFile?: FileReader;
  /**
   * Provider tokens per estimated token, for strategies with a budget: their
   * `maxTokens` is then in the provider's tokens and is divided by this
   * before they count with their tokenizer. Default: calibrated from
   * `providerCount` when given (see `calibratedTokenScale`), else 1.
   */
  tokenScale?: number;
  /**
   * The provider's last count of this conversation: the input tokens it
   * reported and how many of the history's first messages that call sent
   * (0 and 0 before any usage is known). The soul passes it; a strategy with
   * a budget then treats `maxTokens` as provider tokens and scales it by
   * `calibratedTokenScale(inputTokens, its own estimate of those messages)`,
   * bounded, with a margin, and 1.25 when nothing is known yet.
   */
  providerCount?: ProviderCount;
  /**
   * Asked when the model fails while summarising: true has the strategy
   * throw the error, false (and without this option) has it fall back to
   * the extractive summary. The soul answers true for a retryable error
   * while it has retries left, so the call is retried like a step's.
   */
  throwModelError?: (error: unknown) => boolean;
}

/** A provider-reported token count and the messages it covers (see {@link CompactionOptions.providerCount}). */
export interface ProviderCount {
  /** Input tokens of the call (system prompt and tool schemas included). */
  inputTokens: number;
  /** How many of the history's first messages that call sent. */
  messages: number;
}

/** What a compaction kept, dropped and made, for `CompactionEnd` and status lines. */
export interface CompactionDetails {
  /** Messages of the input that survive unchanged in the output. */
  kept: number;
  /** Messages of the input that are gone (summarised or dropped). */
  dropped: number;
  /** Tool outputs replaced by a stub. */
  stubs: number;
  /** Tool outputs cut to an excerpt of the lines about what the recent messages work on. */
  excerpts?: number;
  /** Tool outputs whose lines a later kept output shows again (or repeated lines) were condensed to a marker. */
  condensed?: number;
  /** Paths of the files whose contents were recovered into the output. */
  filesRecovered: string[];
  /** True when the output holds a summary (LLM-written or extractive) of what was dropped. */
  summarized: boolean;
  /** Notes for people: a fallback taken, a budget that could not be met. */
  notes: string[];
  /**
   * The model summaries this compaction rejected or could not get, one line
   * each (`main model (gpt-4o): missing-sections summary`), when the strategy
   * summarises with a model.
   */
  rejectedSummaries?: string[];
  /**
   * The name of the fallback strategy whose output this is (`smart`,
   * `preserve-recent`), when a strategy that summarises with a model got no
   * usable summary: an extractive summary, a truncation, or the history
   * unchanged, which a host should say rather than report a normal compaction.
   */
  fallback?: string;
  /** Tokens of the output as the strategy counted them (times `tokenScale`, when given), for strategies with a budget. */
  tokensAfter?: number;
  /** False when the strategy could not meet its budget (the output is then the smallest it could make). */
  withinBudget?: boolean;
}

/** The outcome of a compaction. */
export interface CompactionResult {
  /** The new conversation (no system prompt), valid for every provider. */
  messages: Message[];
  /** Tokens the strategy's own LLM calls used, null when it made none. */
  usage: TokenUsage | null;
  /** What happened, when the strategy reports it. */
  details?: CompactionDetails;
}

/** A compaction strategy. */
export interface Compaction {
  /** A short name for status lines and events, e.g. `simple`, `preserve-recent`. */
  readonly name: string;
  /** Compacts `history` (the conversation without the system prompt). Never mutates it. */
  compact(history: readonly Message[], options?: CompactionOptions): Promise<CompactionResult>;
}
