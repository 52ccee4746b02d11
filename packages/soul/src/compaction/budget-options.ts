import { o200kTokenizer, TokenCounter, type Tokenizer } from "../tokens/index.js";
import { CompactionError } from "./compaction-error.js";

/** The budget of a strategy that fits the conversation into a number of tokens. */
export interface BudgetOptions {
  /** The most tokens the compacted conversation may hold (as {@link estimateTokens} counts them). */
  maxTokens: number;
  /** How tokens are counted (default o200k_base; `charsPerTokenTokenizer` is the cheap option). */
  tokenizer?: Tokenizer;
}

/** A validated budget with its tokenizer and a counter that remembers each message's count. */
export interface Budget {
  maxTokens: number;
  tokenizer: Tokenizer;
  counter: TokenCounter;
}

/** The validated budget of `options`. @throws CompactionError when `maxTokens` is not a positive integer. */
export function budgetOf(strategy: string, options: BudgetOptions): Budget {
  const { maxTokens } = options;
  if (!(Number.isInteger(maxTokens) && maxTokens > 0)) {
    throw new CompactionError(`${strategy}: maxTokens must be a positive integer, got ${maxTokens}.`);
  }
  const tokenizer = options.tokenizer ?? o200kTokenizer;
  return { maxTokens, tokenizer, counter: new TokenCounter({ tokenizer }) };
}
