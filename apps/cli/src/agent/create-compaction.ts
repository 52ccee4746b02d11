/**
 * The compaction strategies `--compaction` and `/strategy` choose from, built
 * from @kosong/soul's public strategies with this run's budget and models.
 */
import { type Compaction, SimpleCompaction } from "@kosong/soul";
import type { CompactionName } from "../config/setting-values.js";
import type { Providers } from "../providers/create-provider.js";

/** The strategy called `name` for `providers` (the budget is a share of the context window). */
export function createCompaction(name: CompactionName, providers: Providers): Compaction {
  switch (name) {
    case "simple":
    default:
      return new SimpleCompaction();
  }
}
