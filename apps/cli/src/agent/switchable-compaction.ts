/**
 * The soul takes one compaction strategy for its lifetime; `/strategy`
 * changes it mid-session. This strategy delegates to the one chosen now.
 */
import type { Compaction } from "@kosong/soul";
import type { CompactionOptions, CompactionResult } from "@kosong/soul/compaction";
import type { Message } from "@kosong/core";
import type { CompactionName } from "../config/setting-values.js";

/** A compaction strategy that can be swapped while the soul runs. */
export class SwitchableCompaction implements Compaction {
  #current: Compaction;
  #choice: CompactionName;

  constructor(
    choice: CompactionName,
    private readonly build: (name: CompactionName) => Compaction,
  ) {
    this.#choice = choice;
    this.#current = build(choice);
  }

  /** The strategy's own name. */
  get name(): string {
    return this.#current.name;
  }

  /** The name the user chose. */
  get choice(): CompactionName {
    return this.#choice;
  }

  /** Switches to strategy `name` for the next compaction. */
  use(name: CompactionName): void {
    this.#current = this.build(name);
    this.#choice = name;
  }

  compact(history: readonly Message[], options?: CompactionOptions): Promise<CompactionResult> {
    return this.#current.compact(history, options);
  }
}
