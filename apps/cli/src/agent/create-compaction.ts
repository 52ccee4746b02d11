/**
 * The compaction strategies `--compaction` and `/strategy` choose from, built
 * from @kosong/soul's public strategies with this run's budget and models.
 */
import { type Compaction } from "@kosong/soul";
import { AutoCompaction, nodeFileReader, PreserveImportantCompaction, PreserveRecentCompaction, SimpleCompaction, SmartCompaction } from "@kosong/soul/compaction";
import type { CompactionName } from "../config/setting-values.js";
import type { Providers } from "../providers/create-provider.js";

/** The share of the context window a compacted conversation may take. */
export const compactionBudgetShare = 0.3;

/**
 * The strategy called `name` for `providers`: its token budget is
 * {@link compactionBudgetShare} of the context window; `auto` summarises with
 * the compact model (`--compact-model`) when there is one and recovers the
 * files the session's tools touched.
 */
export function createCompaction(name: CompactionName, providers: Providers): Compaction {
  const maxTokens = Math.max(1, Math.floor(providers.maxContextSize * compactionBudgetShare));
  switch (name) {
    case "simple":
      return new SimpleCompaction();
    case "preserve-recent":
      return new PreserveRecentCompaction({ maxTokens });
    case "preserve-important":
      return new PreserveImportantCompaction({ maxTokens });
    case "smart":
      return new SmartCompaction({ maxTokens });
    case "auto":
      return new AutoCompaction({
        maxTokens,
        readFile: nodeFileReader(),
        ...(providers.compact ? { compactModel: { provider: providers.compact, contextSize: providers.maxContextSize } } : {}),
      });
  }
}
