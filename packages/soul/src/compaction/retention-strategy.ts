/**
 * Choosing a strategy: Kode's `createRetentionStrategy` (a preference
 * mapped to a strategy with a budget of 70 % of the target context length),
 * and the soul's default.
 */
import type { ChatProvider } from "@kosong/core";
import type { Tokenizer } from "../tokens/index.js";
import type { Compaction } from "./compaction.js";
import { CompactionError } from "./compaction-error.js";
import { PreserveImportantCompaction } from "./preserve-important-compaction.js";
import { PreserveRecentCompaction } from "./preserve-recent-compaction.js";
import { SimpleCompaction } from "./simple-compaction.js";
import { SmartCompaction } from "./smart-compaction.js";

/** How much a compaction may give up: aggressive keeps only recent messages, conservative summarises the rest. */
export type RetentionPreference = "aggressive" | "balanced" | "conservative";

/** Options of {@link createRetentionStrategy}. */
export interface RetentionStrategyOptions {
  /** The budget as a share of the target context length (default 0.7, as Kode). */
  budgetRatio?: number;
  tokenizer?: Tokenizer;
}

/**
 * The strategy for a preference, with a budget of `budgetRatio` (0.7) x
 * `targetContextLength` tokens: aggressive -> {@link PreserveRecentCompaction},
 * balanced (the default) -> {@link PreserveImportantCompaction},
 * conservative -> {@link SmartCompaction}. Kode's message counts
 * (`preserveCount`) have no use here: every strategy fills its budget in
 * tokens, and the balanced one protects the last 5 messages as Kode's
 * does. `currentTokens` is the context's size now: when it is already within
 * the budget the strategy returns the conversation unchanged, so passing it
 * only validates the call.
 *
 * @throws CompactionError for a target that is not a positive number, or a ratio outside (0, 1].
 */
export function createRetentionStrategy(
  targetContextLength: number,
  currentTokens: number,
  preference: RetentionPreference = "balanced",
  options: RetentionStrategyOptions = {},
): Compaction {
  const ratio = options.budgetRatio ?? 0.7;
  if (!(Number.isFinite(targetContextLength) && targetContextLength > 0)) {
    throw new CompactionError(`createRetentionStrategy: targetContextLength must be positive, got ${targetContextLength}.`);
  }
  if (!(ratio > 0 && ratio <= 1)) throw new CompactionError(`createRetentionStrategy: budgetRatio must be in (0, 1], got ${ratio}.`);
  if (!(currentTokens >= 0)) throw new CompactionError(`createRetentionStrategy: currentTokens must be >= 0, got ${currentTokens}.`);
  const maxTokens = Math.max(1, Math.floor(targetContextLength * ratio));
  const budget = options.tokenizer === undefined ? { maxTokens } : { maxTokens, tokenizer: options.tokenizer };
  switch (preference) {
    case "aggressive":
      return new PreserveRecentCompaction(budget);
    case "conservative":
      return new SmartCompaction(budget);
    case "balanced":
      return new PreserveImportantCompaction(budget);
    default:
      throw new CompactionError(`createRetentionStrategy: unknown preference ${JSON.stringify(preference)}.`);
  }
}

/** Options of {@link defaultCompaction}. */
export interface DefaultCompactionOptions {
  /** The agent's model, if any. */
  provider?: ChatProvider | null;
  /** The context window in tokens; a strategy without an LLM fits the conversation into half of it. */
  maxContextSize: number;
  tokenizer?: Tokenizer;
}

/**
 * The soul's default strategy: {@link SimpleCompaction} (kimi-cli's LLM
 * summary) when a provider is present, otherwise
 * {@link PreserveImportantCompaction} with a budget of half the window (so
 * that a compaction frees room for many steps before the next one).
 */
export function defaultCompaction(options: DefaultCompactionOptions): Compaction {
  if (options.provider != null) return new SimpleCompaction();
  return createRetentionStrategy(options.maxContextSize, 0, "balanced", { budgetRatio: 0.5, tokenizer: options.tokenizer });
}
