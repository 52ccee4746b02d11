/**
 * A {@link ContextLog} in PostgreSQL: one session of a {@link PostgresContextStore}.
 */
import { randomUUID } from "node:crypto";
import type { Pool, PoolClient } from "pg";
import Cursor from "pg-cursor";
import type {
  ContextLog,
  ContextLogState,
  LogAppendReceipt,
  LogPosition,
  LogPrepend,
  LogRotation,
  LogRotationInfo,
  LogRotationRestore,
  LogTruncation,
} from "@kosong/context";
import { checkRotationNote, parseRotationNote, type RotationNote } from "@kosong/context";
import { GroupCommitQueue, InvalidOffsetError, RotationNotFoundError, SessionLockedError, StorageAlreadyModifiedError, StorageClosedError, StorageWriteError } from "@kosong/context";
import { ContextStateBuilder, decodeRecordLine, encodeRecord, type ContextRecord } from "@kosong/context/records";
import { isConnectionLoss, retryOnConnectionLoss, withClient } from "./connection-errors.js";
import type { AppendBatcher } from "./append-batcher.js";
import type { SessionLocks } from "./session-locks.js";

/** What a log shares with its store. @internal */
export interface SessionBackend {
  pool: Pool;
  /** The quoted schema name. */
  schema: string;
  locks: SessionLocks;
  /** The store's group commit of appends across sessions. */
  appends: AppendBatcher;
  reconnectTimeoutMs: number;
  /** Called once when the log is closed. */
  release(sessionId: string): void;
}

/** Where a session stands when it is opened. @internal */
export interface OpenedSession {
  sessionId: string;
  location: string;
  lockKey: string;
  lockEpoch: number;
  epoch: string;
  generation: string;
  end: number;
}

/**
 * Package-internal: appends lines already encoded (validated copies), as
 * `PostgresLinearStorage` does.
 */
export const appendLines: unique symbol = Symbol("appendLines");

/** Package-internal: fills an empty session with a current log and rotations (an import). */
export const importGenerations: unique symbol = Symbol("importGenerations");

/** An append waiting in the queue: its lines, and the key that keeps it from landing twice on a retry. */
interface AppendItem {
  lines: readonly string[];
  key: string;
}

/** The outcome of a whole-log operation, kept in the session row so that a retry finds it. */
interface OpResult {
  generation: string;
  end: number;
  rotation?: number;
  positions?: number[];
  restored?: number;
}

interface SessionRow {
  generation: string;
  next_rotation: number;
  last_op_key: string | null;
  last_op_result: OpResult | null;
}

const READ_BATCH = 2000;

/**
 * A session's current log and its rotations (generations of the session),
 * in PostgreSQL. Positions are record indexes; every record is stored as its
 * exact JSONL line, so the log exports to a `context.jsonl` byte for byte.
 *
 * Appends run in call order and are grouped as the JSONL file's group commit
 * is: everything appended in one tick (and while the previous group was in
 * flight) is one INSERT, one round trip, acknowledged after its commit. Each
 * append carries an idempotency key: after a lost connection the group is
 * retried, and a group whose commit did land is found by its key and not
 * written twice. Whole-log operations (truncate, prepend, restoring a
 * rotation) are one transaction each, also retried idempotently. Retries go
 * on for the store's `reconnectTimeoutMs`; then the call fails with
 * `StorageWriteError` and, since the fate of that write is unknown, so does
 * every later write: reopen the session (after the server is back) to go on.
 *
 * Every write is fenced by the session's epoch, bumped by each writer that
 * opens the session: a writer that lost its lock (its lock connection died
 * and another instance took the session) gets `SessionLockedError`, and
 * nothing of it is written.
 */
export class PostgresContextLog implements ContextLog {
  /** `postgres:<schema>/<session id>`, for messages. */
  readonly location: string;
  /** The session's id. */
  readonly sessionId: string;
  readonly #backend: SessionBackend;
  readonly #lockKey: string;
  #lockEpoch: number;
  readonly #epoch: string;
  #generation: string;
  #end: number;
  /** Appends (committed in groups) and whole-log operations, one at a time. */
  readonly #queue = new GroupCommitQueue<AppendItem, LogAppendReceipt>((group) => this.#commitGroup(group));
  #closed = false;
  #closing: Promise<void> | null = null;
  #broken: Error | null = null;

  /** @internal Opened by {@link PostgresContextStore.openLog}. */
  constructor(backend: SessionBackend, session: OpenedSession) {
    this.#backend = backend;
    this.sessionId = session.sessionId;
    this.location = session.location;
    this.#lockKey = session.lockKey;
    this.#lockEpoch = session.lockEpoch;
    this.#epoch = session.epoch;
    this.#generation = session.generation;
    this.#end = session.end;
  }

  /** Validates and appends `records`; resolves once they are committed. */
  append(records: readonly ContextRecord[]): Promise<LogAppendReceipt> {
    return this.#encoded(records, (lines) => this[appendLines](lines));
  }

  /** @internal */
  [appendLines](lines: readonly string[]): Promise<LogAppendReceipt> {
    if (this.#closed) return Promise.reject(this.#closedError());
    return this.#queue.append({ lines, key: randomUUID() });
  }

  /** @internal */
  [importGenerations](current: readonly string[], rotations: ReadonlyMap<number, readonly string[]>): Promise<void> {
    return this.#enqueue(async () => {
      await this.#transaction(async (client, row) => {
        const { rows } = await client.query<{ taken: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM ${this.#backend.schema}.records WHERE generation_id = $1) OR EXISTS (SELECT 1 FROM ${this.#backend.schema}.rotations WHERE session_id = $2) AS taken`,
          [row.generation, this.sessionId],
        );
        if (rows[0]!.taken) throw new StorageAlreadyModifiedError(`${this.location} already has records or rotations: import into a new session`);
        await this.#insertLines(client, row.generation, 0, current);
        for (const [n, lines] of rotations) {
          const generation = await this.#newGeneration(client);
          await this.#insertLines(client, generation, 0, lines);
          await client.query(`INSERT INTO ${this.#backend.schema}.rotations (session_id, n, generation_id, size) VALUES ($1, $2, $3, $4)`, [
            this.sessionId,
            n,
            generation,
            lines.length,
          ]);
        }
        const next = Math.max(0, ...rotations.keys()) + 1;
        await client.query(`UPDATE ${this.#backend.schema}.sessions SET next_rotation = $2 WHERE session_id = $1`, [this.sessionId, next]);
        return { generation: row.generation, end: current.length };
      });
    });
  }

  /** Streams the current log through a cursor and folds it into its state. */
  read(): Promise<ContextLogState> {
    return this.#enqueue(() => retryOnConnectionLoss(this.#backend.reconnectTimeoutMs, () => this.#readOnce()));
  }

  truncateAndRotate(position: LogPosition, records: readonly ContextRecord[] = []): Promise<LogTruncation> {
    return this.#encoded(records, (lines) => this.#enqueue(async () => {
      if (!Number.isSafeInteger(position) || position < 0) throw new InvalidOffsetError(position, "not a non-negative integer");
      if (position > this.#end) throw new InvalidOffsetError(position, `past the end of the log (${this.#end} records)`);
      const result = await this.#transaction(async (client, row) => {
        const generation = await this.#newGeneration(client);
        await client.query(
          `INSERT INTO ${this.#backend.schema}.records (generation_id, seq, line) SELECT $1, seq, line FROM ${this.#backend.schema}.records WHERE generation_id = $2 AND seq < $3`,
          [generation, row.generation, position],
        );
        await this.#insertLines(client, generation, position, lines);
        const rotation = await this.#rotate(client, row, generation);
        return { generation, end: position + lines.length, rotation, positions: lines.map((_, i) => position + i) };
      });
      return { ...this.#rotationName(result.rotation!), positions: result.positions!, end: result.end };
    }));
  }

  prepend(records: readonly ContextRecord[]): Promise<LogPrepend> {
    return this.#encoded(records, (lines) => this.#enqueue(async () => {
      await this.#transaction(async (client, row) => {
        const generation = await this.#newGeneration(client);
        await this.#insertLines(client, generation, 0, lines);
        await client.query(
          `INSERT INTO ${this.#backend.schema}.records (generation_id, seq, line) SELECT $1, seq + $3, line FROM ${this.#backend.schema}.records WHERE generation_id = $2`,
          [generation, row.generation, lines.length],
        );
        await client.query(`DELETE FROM ${this.#backend.schema}.records WHERE generation_id = $1`, [row.generation]);
        await client.query(`UPDATE ${this.#backend.schema}.sessions SET current_generation = $2 WHERE session_id = $1`, [this.sessionId, generation]);
        return { generation, end: this.#end + lines.length };
      });
      return { positions: lines.map((_, i) => i), shift: lines.length };
    }));
  }

  listRotations(): Promise<LogRotationInfo[]> {
    return this.#enqueue(() =>
      retryOnConnectionLoss(this.#backend.reconnectTimeoutMs, async () => {
        const { rows } = await this.#backend.pool.query<{ n: number; size: number; created_at: Date; note: unknown }>(
          `SELECT n, size, created_at, note FROM ${this.#backend.schema}.rotations WHERE session_id = $1 ORDER BY n`,
          [this.sessionId],
        );
        return rows.map((row) => {
          const note = parseRotationNote(row.note);
          return { ...this.#rotationName(row.n), size: row.size, mtimeMs: row.created_at.getTime(), ...(note && { note }) };
        });
      }),
    );
  }

  /** Stores `note` in rotation `n`'s row, in a fenced transaction. */
  annotateRotation(n: number, note: RotationNote): Promise<void> {
    let checked: RotationNote;
    try {
      checked = checkRotationNote(note);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#enqueue(async () => {
      if (!Number.isSafeInteger(n)) throw new RotationNotFoundError(this.location, n);
      await this.#transaction(async (client, row) => {
        const { rowCount } = await client.query(`UPDATE ${this.#backend.schema}.rotations SET note = $3 WHERE session_id = $1 AND n = $2`, [
          this.sessionId,
          n,
          JSON.stringify(checked),
        ]);
        if (rowCount === 0) throw new RotationNotFoundError(this.location, n);
        return { generation: row.generation, end: this.#end };
      });
    });
  }

  /** A new generation holding the current records and `records`, kept as the next rotation; the current generation is untouched. */
  addRotation(records: readonly ContextRecord[]): Promise<LogRotation> {
    return this.#encoded(records, (lines) => this.#enqueue(async () => {
      const result = await this.#transaction(async (client, row) => {
        const generation = await this.#newGeneration(client);
        await this.#copyRecords(client, row.generation, generation);
        await this.#insertLines(client, generation, this.#end, lines);
        const n = row.next_rotation;
        await client.query(`INSERT INTO ${this.#backend.schema}.rotations (session_id, n, generation_id, size) VALUES ($1, $2, $3, $4)`, [
          this.sessionId,
          n,
          generation,
          this.#end + lines.length,
        ]);
        await client.query(`UPDATE ${this.#backend.schema}.sessions SET next_rotation = $2 WHERE session_id = $1`, [this.sessionId, n + 1]);
        return { generation: row.generation, end: this.#end, rotation: n };
      });
      return this.#rotationName(result.rotation!);
    }));
  }

  /** Makes rotation `n` the current log again (a copy: rotation `n` stays); the replaced log becomes the next rotation. */
  restoreRotation(n: number): Promise<LogRotationRestore> {
    return this.#enqueue(async () => {
      if (!Number.isSafeInteger(n)) throw new RotationNotFoundError(this.location, n);
      const result = await this.#transaction(async (client, row) => {
        const { rows } = await client.query<{ generation: string; size: number }>(
          `SELECT generation_id::text AS generation, size FROM ${this.#backend.schema}.rotations WHERE session_id = $1 AND n = $2`,
          [this.sessionId, n],
        );
        const source = rows[0];
        if (source === undefined) throw new RotationNotFoundError(this.location, n);
        const generation = await this.#newGeneration(client);
        await this.#copyRecords(client, source.generation, generation);
        const rotation = await this.#rotate(client, row, generation);
        return { generation, end: source.size, rotation, restored: n };
      });
      // A rotation exists only after a whole-log write, so the replaced log always counts as written and is kept.
      return { restored: this.#rotationName(result.restored!), savedAs: this.#rotationName(result.rotation!) };
    });
  }

  /** Reads rotation `n` (a generation of the session) into its state; nothing changes. */
  readRotation(n: number): Promise<ContextLogState> {
    return this.#enqueue(async () => {
      if (!Number.isSafeInteger(n)) throw new RotationNotFoundError(this.location, n);
      const query = `SELECT generation_id::text AS generation FROM ${this.#backend.schema}.rotations WHERE session_id = $1 AND n = $2`;
      const { location } = this.#rotationName(n);
      return retryOnConnectionLoss(this.#backend.reconnectTimeoutMs, () =>
        this.#readGeneration(query, [this.sessionId, n], location, () => new RotationNotFoundError(this.location, n)),
      );
    });
  }

  /** Finishes pending appends, then releases the session's lock. Idempotent. */
  close(): Promise<void> {
    if (this.#closing !== null) return this.#closing;
    const drained = this.#queue.run(async () => undefined).catch(() => undefined);
    this.#closed = true;
    this.#closing = drained.then(async () => {
      await this.#backend.locks.unlock(this.#lockKey, this.#lockEpoch);
      this.#backend.release(this.sessionId);
    });
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #rotationName(n: number) {
    return { n, location: `${this.location}@rotation-${n}` };
  }

  async #newGeneration(client: PoolClient): Promise<string> {
    const { rows } = await client.query<{ id: string }>(`SELECT nextval('${this.#backend.schema}.generation_ids')::text AS id`);
    return rows[0]!.id;
  }

  /** Copies every record of generation `from` into the new generation `to`. */
  async #copyRecords(client: PoolClient, from: string, to: string): Promise<void> {
    await client.query(
      `INSERT INTO ${this.#backend.schema}.records (generation_id, seq, line) SELECT $1, seq, line FROM ${this.#backend.schema}.records WHERE generation_id = $2`,
      [to, from],
    );
  }

  async #insertLines(client: PoolClient, generation: string, start: number, lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return;
    await client.query(
      `INSERT INTO ${this.#backend.schema}.records (generation_id, seq, line) SELECT $1, $2 + t.i - 1, t.line FROM unnest($3::text[]) WITH ORDINALITY AS t(line, i)`,
      [generation, start, lines],
    );
  }

  /** Keeps the current generation as the next rotation and makes `generation` current. */
  async #rotate(client: PoolClient, row: SessionRow, generation: string): Promise<number> {
    const n = row.next_rotation;
    await client.query(`INSERT INTO ${this.#backend.schema}.rotations (session_id, n, generation_id, size) VALUES ($1, $2, $3, $4)`, [
      this.sessionId,
      n,
      row.generation,
      this.#end,
    ]);
    await client.query(`UPDATE ${this.#backend.schema}.sessions SET current_generation = $2, next_rotation = $3 WHERE session_id = $1`, [
      this.sessionId,
      generation,
      n + 1,
    ]);
    return n;
  }

  #readOnce(): Promise<ContextLogState> {
    const current = `SELECT current_generation::text AS generation FROM ${this.#backend.schema}.sessions WHERE session_id = $1`;
    return this.#readGeneration(current, [this.sessionId], this.location);
  }

  /**
   * Folds the records of the generation that `query` selects (its first
   * row's `generation`; none: the empty state, or `missing()` thrown).
   */
  #readGeneration(query: string, params: unknown[], path: string, missing?: () => Error): Promise<ContextLogState> {
    return withClient(this.#backend.pool, async (client) => {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const { rows } = await client.query<{ generation: string }>(query, params);
      const builder = new ContextStateBuilder();
      const report = { path, exists: false, bytes: 0, lines: 0, records: 0, skipped: [] as ContextLogState["report"]["skipped"], endsWithNewline: true };
      const generation = rows[0]?.generation;
      if (generation === undefined && missing !== undefined) throw missing();
      if (generation !== undefined) {
        const cursor = client.query(
          new Cursor<{ seq: number; line: string }>(`SELECT seq, line FROM ${this.#backend.schema}.records WHERE generation_id = $1 ORDER BY seq`, [generation]),
        );
        for (;;) {
          const batch = await cursor.read(READ_BATCH);
          if (batch.length === 0) break;
          for (const { seq, line } of batch) {
            report.lines += 1;
            report.bytes += Buffer.byteLength(line) + 1;
            const decoded = decodeRecordLine(line);
            if (decoded.ok) {
              report.records += 1;
              builder.apply(decoded.record, seq);
            } else {
              report.skipped.push({ line: seq + 1, offset: seq, length: Buffer.byteLength(line), kind: decoded.kind, reason: decoded.reason });
            }
          }
        }
        await cursor.close();
        report.exists = report.lines > 0;
      }
      await client.query("COMMIT");
      return builder.finish(report);
    });
  }

  /**
   * Runs a whole-log operation as one transaction on the session row locked
   * FOR UPDATE under this writer's epoch, retried after a lost connection;
   * a retry whose earlier attempt did commit finds its result by its key.
   */
  async #transaction(body: (client: PoolClient, row: SessionRow) => Promise<OpResult>): Promise<OpResult> {
    if (this.#broken !== null) throw this.#broken;
    const key = randomUUID();
    const { schema } = this.#backend;
    const result = await this.#retrying(async () => {
      await this.#relock();
      return withClient(this.#backend.pool, async (client) => {
        await client.query("BEGIN");
        const { rows } = await client.query<SessionRow>(
          `SELECT current_generation::text AS generation, next_rotation, last_op_key, last_op_result FROM ${schema}.sessions WHERE session_id = $1 AND epoch = $2 FOR UPDATE`,
          [this.sessionId, this.#epoch],
        );
        const row = rows[0];
        if (row === undefined) throw await this.#lostLock();
        if (row.last_op_key === key) {
          await client.query("ROLLBACK");
          return row.last_op_result!;
        }
        const done = await body(client, row);
        await client.query(`UPDATE ${schema}.sessions SET last_op_key = $2, last_op_result = $3, updated_at = now() WHERE session_id = $1`, [
          this.sessionId,
          key,
          JSON.stringify(done),
        ]);
        await client.query("COMMIT");
        return done;
      });
    });
    this.#generation = result.generation;
    this.#end = result.end;
    return result;
  }

  /** Appends a group of append calls, idempotently, in the store's next batch (one INSERT, one round trip for all its sessions). */
  async #commitGroup(items: readonly AppendItem[]): Promise<LogAppendReceipt[]> {
    if (this.#broken !== null) throw this.#broken;
    const start = this.#end;
    const receipts: LogAppendReceipt[] = [];
    const lines: string[] = [];
    const keys: Array<string | null> = [];
    for (const item of items) {
      const position = start + lines.length;
      item.lines.forEach((line, i) => {
        lines.push(line);
        keys.push(i === 0 ? item.key : null);
      });
      receipts.push({ position, end: start + lines.length });
    }
    if (lines.length === 0) return receipts;
    const group = { sessionId: this.sessionId, epoch: this.#epoch, generation: this.#generation, start, lines, keys, firstKey: keys.find((key) => key !== null)! };
    await this.#retrying(async () => {
      await this.#relock();
      if (!(await this.#backend.appends.submit(group))) throw await this.#lostLock();
    });
    this.#end = start + lines.length;
    return receipts;
  }

  /** Runs `attempt` with reconnects; a failure whose outcome is unknown breaks the log for later writes. */
  async #retrying<T>(attempt: () => Promise<T>): Promise<T> {
    try {
      return await retryOnConnectionLoss(this.#backend.reconnectTimeoutMs, attempt);
    } catch (error) {
      if (isConnectionLoss(error)) {
        this.#broken = new StorageWriteError(
          `${this.location}: lost the connection to PostgreSQL for ${this.#backend.reconnectTimeoutMs} ms; whether the last write landed is unknown, so this log takes no more writes: reopen the session`,
          { cause: error },
        );
        throw this.#broken;
      }
      if (SessionLockedError.isInstance(error)) this.#broken = error;
      throw error;
    }
  }

  /** After the lock connection was lost, takes the session's lock again (the epoch fence checks that nobody wrote meanwhile). */
  async #relock(): Promise<void> {
    if (this.#lockEpoch === this.#backend.locks.connectionEpoch) return;
    const { locked, epoch } = await this.#backend.locks.tryLock(this.#lockKey);
    if (!locked) throw await this.#lostLock();
    this.#lockEpoch = epoch;
  }

  /** The error of a writer whose session was taken over by another. */
  async #lostLock(): Promise<SessionLockedError> {
    const { rows } = await this.#backend.pool
      .query<{ owner_pid: number | null; owner_host: string | null }>(`SELECT owner_pid, owner_host FROM ${this.#backend.schema}.sessions WHERE session_id = $1`, [
        this.sessionId,
      ])
      .catch(() => ({ rows: [] as Array<{ owner_pid: number | null; owner_host: string | null }> }));
    const owner = { pid: rows[0]?.owner_pid ?? 0, hostname: rows[0]?.owner_host ?? null };
    return new SessionLockedError(
      this.location,
      `advisory lock ${this.#lockKey}`,
      owner,
      `another writer (process ${owner.pid}${owner.hostname === null ? "" : ` on ${owner.hostname}`}), which took the session over after this writer lost its lock or was idle past the lease`,
      `PostgreSQL advisory lock "${this.#lockKey}"`,
    );
  }

  #enqueue<T>(run: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(this.#closedError());
    return this.#queue.run(run);
  }

  /** Validates and encodes `records` (a closed log or an invalid record rejects at once), then runs `write` with their lines. */
  #encoded<T>(records: readonly ContextRecord[], write: (lines: string[]) => Promise<T>): Promise<T> {
    let lines: string[];
    try {
      if (this.#closed) throw this.#closedError();
      lines = records.map(encodeRecord);
    } catch (error) {
      return Promise.reject(error);
    }
    return write(lines);
  }

  #closedError(): StorageClosedError {
    return new StorageClosedError(`${this.location} is closed`);
  }
}
