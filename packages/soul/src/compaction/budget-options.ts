import type { Message } from "@kosong/core";
import { calibratedTokenScale, o200kTokenizer, TokenCounter, type Tokenizer } from "../tokens/index.js";
import type { CompactionOptions } from "./compaction.js";
import { CompactionError } from "./compaction-error.js";

/** The budget of a strategy that fits the conversation into a number of tokens. */
export interface BudgetOptions {
  /**
   * The most tokens the compacted conversation may hold: as {@link estimateTokens}
   * counts them, or in the provider's tokens when the compaction is given a
   * `tokenScale` (the soul passes one: see {@link CompactionOptions.tokenScale}).
   */
  maxTokens: number;
  /** How tokens are counted (default o200k_base; `charsPerTokenTokenizer` is the cheap option). */
  tokenizer?: Tokenizer;
}

/** A validated budget with its tokenizer and a counter that remembers each message's count. */
export interface Budget {
  /** The budget in estimated tokens (the configured one divided by `scale`). */
  maxTokens: number;
  tokenizer: Tokenizer;
  counter: TokenCounter;
  /** Provider tokens per estimated token ({@link CompactionOptions.tokenScale}); 1 when not calibrated. */
  scale: number;
}

/** The validated budget of `options`. @throws CompactionError when `maxTokens` is not a positive integer. */
export function budgetOf(strategy: string, options: BudgetOptions): Budget {
  const { maxTokens } = options;
  if (!(Number.isInteger(maxTokens) && maxTokens > 0)) {
    throw new CompactionError(`${strategy}: maxTokens must be a positive integer, got ${maxTokens}.`);
  }
  const tokenizer = options.tokenizer ?? o200kTokenizer;
  return { maxTokens, tokenizer, counter: new TokenCounter({ tokenizer }), scale: 1 };
}

/**
 * `budget` in estimated tokens for a compaction whose options carry a
 * `tokenScale` (provider tokens per estimated token) or a `providerCount`
 * (calibrated against this budget's own estimate of the messages it
 * covers): `maxTokens` divided by the scale, at least 1. The budget itself
 * when there is neither.
 * @throws CompactionError for a scale that is not a positive finite number.
 */
export function scaledBudget(strategy: string, budget: Budget, history: readonly Message[], options: CompactionOptions): Budget {
  const count = options.providerCount;
  const scale =
    options.tokenScale ??
    (count === undefined ? undefined : calibratedTokenScale(count.inputTokens, budget.counter.count(history.slice(0, Math.max(0, count.messages)))));
  if (scale === undefined || scale === 1) return budget;
  if (!(Number.isFinite(scale) && scale > 0)) throw new CompactionError(`${strategy}: tokenScale must be a positive number, got ${scale}.`);
  return { ...budget, maxTokens: Math.max(1, Math.floor(budget.maxTokens / scale)), scale };
}
