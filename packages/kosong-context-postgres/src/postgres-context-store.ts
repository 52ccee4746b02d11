/**
 * The entry point of @kosong/context-postgres: a connection to the database
 * (a connection string or an existing pool) that migrates the schema and
 * opens sessions as {@link PostgresContextLog}s or {@link PostgresLinearStorage}s.
 */
import os from "node:os";
import pg, { type Pool, type PoolConfig } from "pg";
import { SessionLockedError, StorageClosedError, StorageOpenError } from "@kosong/context";
import { retryOnConnectionLoss, withClient } from "./connection-errors.js";
import { migrateSchema } from "./migrations.js";
import { importGenerations, PostgresContextLog, type SessionBackend } from "./postgres-context-log.js";
import { PostgresLinearStorage } from "./postgres-linear-storage.js";
import { exportSession, readSessionFiles, type SessionExport } from "./session-transfer.js";
import { AppendBatcher, type AppendStats } from "./append-batcher.js";
import { SessionLocks } from "./session-locks.js";
import { quoteIdentifier } from "./sql-names.js";
import { firstPromptIn, type RestoreReport, type SessionSummary } from "@kosong/context";

/** Where the store connects: a connection string, pool settings, or a pool the caller owns. */
export type PostgresTarget = string | PoolConfig | Pool;

/** Options of {@link PostgresContextStore.connect}. */
export interface PostgresStoreOptions {
  /** The schema holding the tables (default `"kosong"`): lower-case letters, digits and `_`. */
  schema?: string;
  /** Create or migrate the schema while connecting (default true); with false, call {@link PostgresContextStore.migrate} yourself. */
  migrate?: boolean;
  /**
   * How long an operation keeps reconnecting and retrying after the
   * connection to the server was lost before it fails (default 30 000 ms).
   */
  reconnectTimeoutMs?: number;
  /**
   * How long (ms) a session's writer may go without writing before another
   * instance may take the session over although the writer's lock is still
   * held (default: never; a crashed writer's lock goes with its connection
   * at once). The writer that lost it gets `SessionLockedError` at its next
   * write, which writes nothing.
   */
  leaseMs?: number;
}

const DEFAULT_SCHEMA = "kosong";

/** How many first records of a session its first prompt is looked for in. */
const FIRST_PROMPT_SCAN_LINES = 200;

/**
 * A session id: 1-512 characters of well-formed Unicode (no lone UTF-16
 * surrogate: the server would store it as U+FFFD, and two such ids would
 * share a row), no control characters.
 */
function checkSessionId(sessionId: string): string {
  // eslint-disable-next-line no-control-regex
  if (typeof sessionId !== "string" || sessionId.length === 0 || sessionId.length > 512 || !sessionId.isWellFormed() || /[\u0000-\u001f\u007f]/.test(sessionId)) {
    throw new TypeError(`a session id must be 1-512 characters of well-formed Unicode without control characters, got ${JSON.stringify(String(sessionId)).slice(0, 80)}`);
  }
  return sessionId;
}

function isPool(target: PostgresTarget): target is Pool {
  return typeof target === "object" && target !== null && typeof (target as Pool).connect === "function" && typeof (target as Pool).query === "function";
}

/**
 * Many sessions in one PostgreSQL database, keyed by session id. One store
 * per process is enough: it holds a pool (its own, or the caller's) and one
 * connection for the sessions' locks.
 *
 * One writer per session across machines: opening a session takes a
 * PostgreSQL advisory lock; a second writer (another store, in this process
 * or another, on any machine) gets `SessionLockedError`, as with files. When
 * the lock connection dies (the process crashed, the network failed, the
 * server ended it) the server drops the lock and another instance can take
 * the session over; the old writer's next write then fails with
 * `SessionLockedError` and writes nothing.
 */
export class PostgresContextStore {
  /** The schema name. */
  readonly schema: string;
  readonly #pool: Pool;
  readonly #ownsPool: boolean;
  readonly #backend: SessionBackend;
  readonly #open = new Set<string>();
  readonly #logs = new Set<PostgresContextLog>();
  readonly #leaseMs: number | null;
  #closed = false;

  private constructor(pool: Pool, ownsPool: boolean, schema: string, reconnectTimeoutMs: number, leaseMs: number | null) {
    this.#pool = pool;
    this.#leaseMs = leaseMs;
    this.#ownsPool = ownsPool;
    this.schema = schema;
    this.#backend = {
      pool,
      schema: quoteIdentifier(schema),
      locks: new SessionLocks(pool),
      appends: new AppendBatcher(pool, quoteIdentifier(schema)),
      reconnectTimeoutMs,
      release: (sessionId) => this.#open.delete(sessionId),
    };
  }

  /**
   * Connects to `target` and, unless `migrate: false`, brings the schema up
   * to date (safe when several instances start at once). A pool passed in
   * stays the caller's: the store takes one connection from it for the
   * sessions' locks and never ends it. Throws `StorageOpenError` when the
   * server cannot be reached within `reconnectTimeoutMs`.
   */
  static async connect(target: PostgresTarget, options: PostgresStoreOptions = {}): Promise<PostgresContextStore> {
    const schema = options.schema ?? DEFAULT_SCHEMA;
    quoteIdentifier(schema);
    const leaseMs = options.leaseMs ?? null;
    if (leaseMs !== null && !(Number.isFinite(leaseMs) && leaseMs > 0)) throw new RangeError(`leaseMs must be a positive number of milliseconds, got ${leaseMs}`);
    const owns = !isPool(target);
    const pool = isPool(target) ? target : new pg.Pool(typeof target === "string" ? { connectionString: target } : target);
    // An idle connection the server ends (a restart, pg_terminate_backend) is dropped by the pool; without a listener it would crash the process.
    if (owns) pool.on("error", () => undefined);
    const store = new PostgresContextStore(pool, owns, schema, options.reconnectTimeoutMs ?? 30_000, leaseMs);
    if (options.migrate !== false) {
      try {
        await store.migrate();
      } catch (error) {
        if (owns) await pool.end().catch(() => undefined);
        throw new StorageOpenError(`postgres:${schema}`, `cannot migrate the schema: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    }
    return store;
  }

  /**
   * Counters of the appends since connecting: the INSERT statements sent
   * and the append groups they carried (appends of many sessions in one
   * tick share one statement).
   */
  get stats(): AppendStats {
    return this.#backend.appends.stats;
  }

  /** Creates or migrates the schema; resolves to the versions applied now. */
  async migrate(): Promise<number[]> {
    this.#assertOpen();
    return retryOnConnectionLoss(this.#backend.reconnectTimeoutMs, () => withClient(this.#pool, (client) => migrateSchema(client, this.schema)));
  }

  /**
   * Opens session `sessionId` for writing (created on its first write),
   * taking its lock: `SessionLockedError` when another writer holds it, in
   * this store or any other (unless, with `leaseMs`, that writer has not
   * written for longer: then the session is taken over, and that writer's
   * next write fails).
   */
  async openLog(sessionId: string): Promise<PostgresContextLog> {
    const { location, lockKey } = this.#claim(sessionId);
    let lockEpoch: number | null = null;
    try {
      const opened = await retryOnConnectionLoss(this.#backend.reconnectTimeoutMs, async () => {
        const lock = await this.#backend.locks.tryLock(lockKey);
        // Not locked: taken over only from a writer idle past the lease (checked in the same statement that fences it).
        if (!lock.locked && this.#leaseMs === null) throw await this.#lockedError(sessionId, location, lockKey);
        if (lock.locked) lockEpoch = lock.epoch;
        const { rows } = await this.#pool.query<{ epoch: string; generation: string; end: number }>(
          `WITH s AS (
             INSERT INTO ${this.#backend.schema}.sessions AS s (session_id, owner_pid, owner_host) VALUES ($1, $2, $3)
             ON CONFLICT (session_id) DO UPDATE SET epoch = s.epoch + 1, owner_pid = $2, owner_host = $3, updated_at = now()
             WHERE $4 OR s.updated_at < now() - make_interval(secs => $5::double precision / 1000)
             RETURNING epoch, current_generation
           )
           SELECT s.epoch::text AS epoch, s.current_generation::text AS generation,
             coalesce((SELECT max(seq) + 1 FROM ${this.#backend.schema}.records r WHERE r.generation_id = s.current_generation), 0)::integer AS end
           FROM s`,
          [sessionId, process.pid, os.hostname(), lock.locked, this.#leaseMs ?? 0],
        );
        if (rows.length === 0) throw await this.#lockedError(sessionId, location, lockKey);
        return { ...rows[0]!, lockEpoch: lock.epoch };
      });
      const log = new PostgresContextLog(
        { ...this.#backend, release: (id) => (this.#logs.delete(log), this.#backend.release(id)) },
        { sessionId, location, lockKey, lockEpoch: opened.lockEpoch, epoch: opened.epoch, generation: opened.generation, end: opened.end },
      );
      this.#logs.add(log);
      return log;
    } catch (error) {
      this.#open.delete(sessionId);
      if (lockEpoch !== null) await this.#backend.locks.unlock(lockKey, lockEpoch);
      if (SessionLockedError.isInstance(error)) throw error;
      throw new StorageOpenError(location, error instanceof Error ? error.message : String(error), { cause: error });
    }
  }

  /** A {@link PostgresLinearStorage} over session `sessionId` (opened by its `restore()` or first append). */
  linearStorage(sessionId: string): PostgresLinearStorage {
    this.#assertOpen();
    checkSessionId(sessionId);
    return new PostgresLinearStorage(this.#location(sessionId), () => this.openLog(sessionId));
  }

  /**
   * The size in bytes of session `sessionId`'s current conversation as a
   * `context.jsonl` would hold it (each stored line and its newline; the
   * rotations not counted), 0 for a session never written. Takes no lock:
   * a writer may change it right after.
   */
  sessionBytes(sessionId: string): Promise<number> {
    this.#assertOpen();
    checkSessionId(sessionId);
    const { schema } = this.#backend;
    return retryOnConnectionLoss(this.#backend.reconnectTimeoutMs, async () => {
      const { rows } = await this.#pool.query<{ bytes: string | null }>(
        `SELECT sum(octet_length(r.line) + 1)::text AS bytes FROM ${schema}.sessions s JOIN ${schema}.records r ON r.generation_id = s.current_generation WHERE s.session_id = $1`,
        [sessionId],
      );
      return Number(rows[0]?.bytes ?? 0);
    });
  }

  /**
   * Writes session `sessionId` as a `context.jsonl` at `file` (replacing
   * it) and each rotation as `<stem>_<n><ext>` beside it, the lines exactly
   * as stored: kimi-cli and `JsonlContextFile` read them as they are, and
   * the list of those rotations as `<file>.export.json`. Rotation files an
   * earlier export left beside `file` are removed. Each file is created
   * exclusively under a temporary name and renamed into place (a symlink
   * there is replaced, never followed). Reads one consistent snapshot
   * through a cursor; takes no lock.
   */
  exportSession(sessionId: string, file: string): Promise<SessionExport> {
    this.#assertOpen();
    checkSessionId(sessionId);
    return exportSession(this.#backend, sessionId, file);
  }

  /**
   * Creates session `sessionId` from the context file `file` and its
   * rotations beside it (`<stem>_<n><ext>`: those `<file>.export.json`
   * names when an export wrote it, else all), in one transaction under the
   * session's lock. Damaged lines are skipped and reported, as a file
   * restore does. Throws `StorageAlreadyModifiedError` when the session
   * already has records or rotations, `StorageOpenError` (before the session
   * is opened) when `file` is missing.
   */
  async importSession(sessionId: string, file: string): Promise<RestoreReport> {
    this.#assertOpen();
    checkSessionId(sessionId);
    const files = await readSessionFiles(file);
    const log = await this.openLog(sessionId);
    try {
      await log[importGenerations](files.current, files.rotations);
      return files.report;
    } finally {
      await log.close();
    }
  }

  /**
   * Every session, most recently written first: the size of its current log
   * (bytes of its lines with their newlines, as `exportSession` writes it), its rotations, when it was last written (an
   * append, a whole-log operation, or an open) and its first prompt (from
   * its oldest rotation, else the current log; at most 200 characters).
   */
  async listSessions(): Promise<SessionSummary[]> {
    this.#assertOpen();
    const schema = this.#backend.schema;
    const { rows } = await retryOnConnectionLoss(this.#backend.reconnectTimeoutMs, () =>
      this.#pool.query<{ session_id: string; updated_at: Date; size: string; rotations: number; first_lines: string[] | null }>(
        `SELECT s.session_id, s.updated_at,
           coalesce((SELECT sum(octet_length(r.line) + 1) FROM ${schema}.records r WHERE r.generation_id = s.current_generation), 0)::text AS size,
           (SELECT count(*) FROM ${schema}.rotations o WHERE o.session_id = s.session_id)::integer AS rotations,
           (SELECT array_agg(f.line ORDER BY f.seq) FROM (
              SELECT r.line, r.seq FROM ${schema}.records r
              WHERE r.generation_id = coalesce((SELECT o.generation_id FROM ${schema}.rotations o WHERE o.session_id = s.session_id ORDER BY o.n LIMIT 1), s.current_generation)
              ORDER BY r.seq LIMIT $1) f) AS first_lines
         FROM ${schema}.sessions s
         ORDER BY s.updated_at DESC, s.session_id`,
        [FIRST_PROMPT_SCAN_LINES],
      ),
    );
    return rows.map((row) => ({
      id: row.session_id,
      size: Number(row.size),
      rotations: row.rotations,
      updatedAt: row.updated_at,
      firstPrompt: firstPromptIn(row.first_lines ?? []),
    }));
  }

  /**
   * Deletes session `sessionId` with its rotations, in one transaction,
   * under its lock: `SessionLockedError` while a writer holds it (unless,
   * with `leaseMs`, it is idle past the lease; its next write then fails).
   * Resolves to false when there was no such session.
   */
  async deleteSession(sessionId: string): Promise<boolean> {
    const { location, lockKey } = this.#claim(sessionId);
    let lockEpoch: number | null = null;
    try {
      const lock = await this.#backend.locks.tryLock(lockKey);
      if (lock.locked) lockEpoch = lock.epoch;
      else if (this.#leaseMs === null) throw await this.#lockedError(sessionId, location, lockKey);
      const schema = this.#backend.schema;
      const deleted = await withClient(this.#pool, async (client) => {
        await client.query("BEGIN");
        try {
          const { rows } = await client.query<{ current_generation: string }>(
            `SELECT current_generation::text FROM ${schema}.sessions WHERE session_id = $1
               AND ($2 OR updated_at < now() - make_interval(secs => $3::double precision / 1000)) FOR UPDATE`,
            [sessionId, lock.locked, this.#leaseMs ?? 0],
          );
          const exists = (await client.query(`SELECT 1 FROM ${schema}.sessions WHERE session_id = $1`, [sessionId])).rowCount! > 0;
          if (rows.length === 0) {
            await client.query("ROLLBACK");
            return exists ? null : false;
          }
          await client.query(
            `DELETE FROM ${schema}.records WHERE generation_id = $2 OR generation_id IN (SELECT generation_id FROM ${schema}.rotations WHERE session_id = $1)`,
            [sessionId, rows[0]!.current_generation],
          );
          await client.query(`DELETE FROM ${schema}.sessions WHERE session_id = $1`, [sessionId]);
          await client.query("COMMIT");
          return true;
        } catch (error) {
          await client.query("ROLLBACK").catch(() => undefined);
          throw error;
        }
      });
      if (deleted === null) throw await this.#lockedError(sessionId, location, lockKey);
      return deleted;
    } finally {
      this.#open.delete(sessionId);
      if (lockEpoch !== null) await this.#backend.locks.unlock(lockKey, lockEpoch);
    }
  }

  /** Closes every open log (their pending appends finish first), the lock connection and, if the store made it, the pool. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#logs].map((log) => log.close()));
    await this.#backend.locks.close();
    if (this.#ownsPool) await this.#pool.end();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** The error for a session another writer holds, naming it (a holder that has just taken a new session gets 200 ms to record itself). */
  async #lockedError(sessionId: string, location: string, lockKey: string): Promise<SessionLockedError> {
    let row: { owner_pid: number | null; owner_host: string | null } | undefined;
    for (let attempt = 0; attempt < 10 && row?.owner_pid == null; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      ({ rows: [row] } = await this.#pool.query<{ owner_pid: number | null; owner_host: string | null }>(
        `SELECT owner_pid, owner_host FROM ${this.#backend.schema}.sessions WHERE session_id = $1`,
        [sessionId],
      ));
    }
    const owner = { pid: row?.owner_pid ?? 0, hostname: row?.owner_host ?? null };
    const lease = this.#leaseMs === null ? "" : `; it can be taken over once idle for ${this.#leaseMs} ms`;
    return new SessionLockedError(
      location,
      `advisory lock ${lockKey}`,
      owner,
      `process ${owner.pid}${owner.hostname === null ? "" : ` on ${owner.hostname}`}`,
      `PostgreSQL advisory lock "${lockKey}"${lease}`,
    );
  }

  /**
   * Checks `sessionId` and marks it in use by this store (the caller removes
   * the mark when done): `SessionLockedError` when a handle of this store has it.
   */
  #claim(sessionId: string): { location: string; lockKey: string } {
    this.#assertOpen();
    checkSessionId(sessionId);
    const location = this.#location(sessionId);
    const lockKey = `kosong-context-postgres ${this.schema} ${sessionId}`;
    if (this.#open.has(sessionId)) {
      throw new SessionLockedError(location, `advisory lock ${lockKey}`, { pid: process.pid, hostname: os.hostname() }, "another open handle in this process", `PostgreSQL advisory lock "${lockKey}"`);
    }
    this.#open.add(sessionId);
    return { location, lockKey };
  }

  /** A session's name in messages: `postgres:<schema>/<session id>`. */
  #location(sessionId: string): string {
    return `postgres:${this.schema}/${sessionId}`;
  }

  #assertOpen(): void {
    if (this.#closed) throw new StorageClosedError(`the store postgres:${this.schema} is closed`);
  }
}
