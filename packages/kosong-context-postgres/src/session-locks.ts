/**
 * One writer per session, across machines: a session-level advisory lock per
 * open session, all held on one dedicated connection of the store. When that
 * connection dies the server releases its locks, so another instance can take
 * the sessions over; this side notices through {@link SessionLocks.connectionEpoch}
 * and takes each lock again before its next write (a write is also fenced by
 * the session's epoch, so it can never land after another writer took over).
 */
import type { Pool, PoolClient } from "pg";

/** The advisory locks of one store, on one connection. */
export class SessionLocks {
  readonly #pool: Pool;
  #client: PoolClient | null = null;
  #connecting: Promise<PoolClient> | null = null;
  #epoch = 0;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  /** Counts the lock connections lost so far: a lock taken under another value is gone. */
  get connectionEpoch(): number {
    return this.#epoch;
  }

  /** Takes the lock named `key` unless another connection holds it; resolves to whether it did, and under which connection epoch. */
  tryLock(key: string): Promise<{ locked: boolean; epoch: number }> {
    return this.#serially(async () => {
      const client = await this.#connection();
      const epoch = this.#epoch;
      try {
        const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked", [key]);
        return { locked: rows[0]!.locked, epoch };
      } catch (error) {
        this.#drop(client);
        throw error;
      }
    });
  }

  /** Releases the lock `key` if it was taken under `epoch` and that connection is still up. Never throws. */
  unlock(key: string, epoch: number): Promise<void> {
    return this.#serially(async () => {
      const client = this.#client;
      if (client === null || epoch !== this.#epoch) return;
      await client.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [key]).catch(() => this.#drop(client));
    });
  }

  /** Runs `task` after every earlier one: one statement at a time on the lock connection. */
  #serially<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(task);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** Gives the lock connection back (its locks go with it). */
  async close(): Promise<void> {
    const client = this.#client ?? (await this.#connecting?.catch(() => null)) ?? null;
    if (client !== null) this.#drop(client);
  }

  #connection(): Promise<PoolClient> {
    if (this.#client !== null) return Promise.resolve(this.#client);
    this.#connecting ??= this.#pool.connect().then(
      (client) => {
        this.#connecting = null;
        this.#client = client;
        const lost = () => this.#drop(client);
        client.on("error", lost);
        client.on("end", lost);
        return client;
      },
      (error: unknown) => {
        this.#connecting = null;
        throw error;
      },
    );
    return this.#connecting;
  }

  #drop(client: PoolClient): void {
    if (this.#client !== client) return;
    this.#client = null;
    this.#epoch += 1;
    // Destroyed, not reused: a pooled connection must not carry advisory locks to another user.
    client.release(true);
  }
}
