/**
 * The strategy a soul compacts with when it is not given one: the
 * compaction area's `defaultCompaction`, chosen by the model compaction may
 * summarise with (`compactionProvider`, by default the agent's own).
 */
import type { ChatProvider } from "@kosong/core";
import { type Compaction, defaultCompaction } from "../compaction/index.js";

/**
 * `strategy` when given (null: no compaction); otherwise `SimpleCompaction`
 * (kimi-cli's LLM summary) when compaction has a model, and
 * `PreserveImportantCompaction` fitting half the context window when it has
 * none (`compactionProvider: null`).
 * @throws RangeError when the default needs the window size (no model) and it is unknown.
 */
export function soulCompaction(strategy: Compaction | null | undefined, provider: ChatProvider | null, maxContextSize: number | null): Compaction | null {
  if (strategy !== undefined) return strategy;
  // With a model the default is SimpleCompaction, which has no budget: the window size plays no part.
  if (provider !== null) return defaultCompaction({ provider, maxContextSize: maxContextSize ?? 0 });
  if (maxContextSize === null) {
    throw new RangeError(
      "SoulOptions: with `compactionProvider: null` the default strategy (PreserveImportantCompaction) is sized from the context window; " +
        "set `config.maxContextSize`, pass a `compaction` strategy, or `compaction: null`.",
    );
  }
  return defaultCompaction({ provider: null, maxContextSize });
}
