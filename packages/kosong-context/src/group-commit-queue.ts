/**
 * The work queue of one writer of a log, with group commit: operations run
 * one at a time in call order, and appends waiting next to each other are
 * committed together, so appends made at the same time cost one write (and
 * one fsync). Work is gathered until the event loop's next turn
 * (`setImmediate`), then drained.
 */

type Item<A> =
  | { kind: "append"; append: A; resolve: (value: unknown) => void; reject: (error: unknown) => void }
  | { kind: "op"; run: () => Promise<unknown>; resolve: (value: unknown) => void; reject: (error: unknown) => void };

/** Options of a {@link GroupCommitQueue}. */
export interface GroupCommitQueueOptions {
  /** The most appends committed together (default: all that wait in a row; 1 commits each alone). */
  maxBatch?: number;
}

/**
 * A queue whose appends of type `A` are committed in batches by `commit`,
 * each settling with its `R`.
 *
 * ```ts
 * const queue = new GroupCommitQueue<Buffer, number>(async (lines) => writeAndSync(lines));
 * const [a, b] = await Promise.all([queue.append(line1), queue.append(line2)]); // one commit
 * await queue.run(() => truncate()); // after both, alone
 * ```
 */
export class GroupCommitQueue<A, R> {
  readonly #commit: (batch: A[]) => Promise<R[]>;
  readonly #maxBatch: number;
  #items: Item<A>[] = [];
  #scheduled = false;
  #draining = false;

  /**
   * @param commit Commits a batch of appends, in order, all or none: resolves
   *   with one result per append, or rejects (every append of the batch
   *   then rejects with its error).
   */
  constructor(commit: (batch: A[]) => Promise<R[]>, options: GroupCommitQueueOptions = {}) {
    this.#commit = commit;
    this.#maxBatch = options.maxBatch ?? Number.POSITIVE_INFINITY;
  }

  /** Queues `append`, committed with the appends next to it; resolves with its result. */
  append(append: A): Promise<R> {
    return new Promise<R>((resolve, reject) => this.#push({ kind: "append", append, resolve: resolve as (value: unknown) => void, reject }));
  }

  /** Runs `op` after everything queued before it, and before anything queued after it. */
  run<T>(op: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => this.#push({ kind: "op", run: op, resolve: resolve as (value: unknown) => void, reject }));
  }

  #push(item: Item<A>): void {
    this.#items.push(item);
    if (this.#scheduled || this.#draining) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      const items = this.#items;
      while (items.length > 0) {
        const head = items[0]!;
        if (head.kind === "op") {
          items.shift();
          await Promise.resolve().then(head.run).then(head.resolve, head.reject);
          continue;
        }
        let count = 0;
        while (count < this.#maxBatch && items[count]?.kind === "append") count += 1;
        const batch = items.splice(0, count) as Array<Extract<Item<A>, { kind: "append" }>>;
        try {
          const results = await this.#commit(batch.map((item) => item.append));
          batch.forEach((item, i) => item.resolve(results[i]));
        } catch (error) {
          for (const item of batch) item.reject(error);
        }
      }
    } finally {
      this.#draining = false;
    }
  }
}
