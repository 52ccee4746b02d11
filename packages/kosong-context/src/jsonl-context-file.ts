/**
 * The writer of the context-file format, at record level: the one place that
 * appends to, truncates, rotates and rewrites a `context.jsonl`. kimi-cli's
 * checkpointed Context (in @kosong/soul) and `JsonlLinearStorage` are built
 * on it.
 */
import { open, rename, stat, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { encodeRecord, type ContextRecord } from "./context-record.js";
import type { ContextLog, ContextLogState, LogAppendReceipt, LogPosition, LogPrepend, LogRotation, LogRotationInfo, LogRotationRestore, LogTruncation } from "./context-log.js";
import { inspectFile, replaceWithCopy, resolveContextFile, type FileFacts } from "./context-file-target.js";
import { readContextFile } from "./context-state.js";
import { GroupCommitQueue } from "./group-commit-queue.js";
import {
  copyToNewFile,
  fsyncDirectory,
  hasCode,
  modeOf,
  PRIVATE_FILE_MODE,
  removeStaleTempFiles,
  tempPathFor,
  unlinkQuietly,
  writeAll,
  writeNewFileFrom,
} from "./durable-fs.js";
import {
  ContextFileChangedError,
  ContextStorageError,
  InvalidOffsetError,
  RotationNotFoundError,
  StorageClosedError,
  StorageOpenError,
  StorageWriteError,
} from "./errors.js";
import { checkWritten, compareWritten, statOrNullNow, takeBack } from "./foreign-change.js";
import { scanContextFile, type ScanOptions, type ScannedRecord } from "./record-scanner.js";
import type { RestoreReport } from "./restore-report.js";
import { linkNextRotation, listRotations, rotationPath, writeNextRotation } from "./rotation.js";
import { checkRotationNote, type RotationNote } from "./rotation-note.js";
import { appendRotationNote } from "./rotation-notes.js";
import { SessionLock } from "./session-lock.js";

/**
 * When an append is acknowledged:
 * - `"none"`: once written to the file (survives the process being killed,
 *   not a power loss); no fsync.
 * - `"batch"` (default): group commit. Everything appended in one tick of
 *   the event loop (and while the previous commit was in flight) goes out as
 *   one write and one fsync, and is acknowledged after that fsync.
 * - `"always"`: each append call gets its own write and fsync.
 */
export type Durability = "none" | "batch" | "always";

/** Options of {@link JsonlContextFile.open}. */
export interface ContextFileOptions {
  /** Default `"batch"`. */
  durability?: Durability;
  /**
   * Take the file's lock (`<file>.lock`, default true): a second writer, in
   * this process or another live one, gets a `SessionLockedError`.
   */
  lock?: boolean;
  /**
   * How long (ms) a live writer may leave the file unwritten before another
   * opener may take its lock over (default: never; a dead writer's lock is
   * taken over at once). The writer that lost it finds out at its next
   * write or read (`ContextFileChangedError` once the new writer wrote).
   */
  leaseMs?: number;
}

/** Counters of the I/O a context file has done since it was opened. */
export interface ContextFileStats {
  /** Append writes (one per committed batch). */
  writes: number;
  /** fsyncs after append writes. */
  syncs: number;
  /** Bytes appended. */
  bytes: number;
}

const NEWLINE = Buffer.from("\n");
const durabilities: ReadonlySet<string> = new Set<Durability>(["none", "batch", "always"]);

/** `durability` or the default `"batch"`; a TypeError for anything else. */
export function checkDurability(durability: Durability | undefined): Durability {
  if (durability === undefined) return "batch";
  if (!durabilities.has(durability)) throw new TypeError(`durability must be "none", "batch" or "always", got ${String(durability)}`);
  return durability;
}

/**
 * Package-internal: appends lines already encoded (by `encodeRecord`, or
 * `serializeMessage` of a validated copy). Used by `JsonlLinearStorage`,
 * which validates messages itself to keep the validated copies.
 */
export const appendPrepared: unique symbol = Symbol("appendPrepared");

/**
 * A context file opened for writing: appends records in order with the
 * chosen durability, and performs the crash-safe whole-file operations
 * (truncate-with-rotation, prepend, restoring a rotation). Every operation
 * runs in call order with the appends around it.
 *
 * Crash safety: an append is acknowledged only once written (and, unless
 * durability is `"none"`, fsynced); a crash can at most tear the last line,
 * which readers skip and report. Whole-file operations build the new file
 * in a temp file, fsync it, rename it over the current file and fsync the
 * directory, so after a crash the current file is wholly old or wholly new
 * and every rotation is complete.
 *
 * As a {@link ContextLog}, positions are byte offsets and rotations are
 * files `<stem>_<N><ext>` beside the file (their path is their `location`).
 *
 * Other writers: the lock keeps out every writer that takes it, but not
 * kimi-cli, an editor or a script. Before each append batch, whole-file
 * operation and read, and again after each append write, the writer compares
 * the file's device, inode and size with what it last wrote; if another
 * program appended to it, cut it, renamed it away or replaced it, the
 * operation rejects with `ContextFileChangedError` and so does every later
 * one on this handle (reopen to go on). So an acknowledged record is always
 * one that a restore of the file returns.
 */
export class JsonlContextFile implements ContextLog {
  /** The file's absolute path (a symbolic link's target). */
  readonly path: string;
  readonly durability: Durability;
  readonly #lock: SessionLock | null;
  readonly #dir: string;
  #exists: boolean;
  /** Device and inode of the file this writer last wrote (0 before it exists). */
  #dev: number;
  #ino: number;
  #handle: FileHandle | null = null;
  #size: number;
  #needsNewline: boolean;
  /** Appends (the records' lines, each ending in a newline, in UTF-8) and operations, one at a time. */
  readonly #queue: GroupCommitQueue<Buffer, LogAppendReceipt>;
  #closed = false;
  #closing: Promise<void> | null = null;
  #broken: StorageWriteError | null = null;
  readonly #stats: ContextFileStats = { writes: 0, syncs: 0, bytes: 0 };

  private constructor(file: string, durability: Durability, lock: SessionLock | null, facts: FileFacts) {
    this.path = file;
    this.durability = durability;
    this.#queue = new GroupCommitQueue((batch) => this.#commit(batch), { maxBatch: durability === "always" ? 1 : Number.POSITIVE_INFINITY });
    this.#lock = lock;
    this.#dir = path.dirname(file);
    this.#exists = facts.exists;
    this.#dev = facts.dev;
    this.#ino = facts.ino;
    this.#size = facts.size;
    this.#needsNewline = !facts.endsWithNewline;
  }

  /**
   * Opens `file` for writing (the file itself is created by the first
   * write). Its folder must exist: opening does not create folders, so a
   * mistyped path fails here instead of starting a conversation somewhere
   * unexpected. Takes the lock unless `lock: false`; then, under the lock,
   * removes temp files left by an interrupted operation and, if a crash
   * interrupted a rotation so that the file still shares its inode with the
   * new rotation, gives the file a fresh copy of itself so that appends
   * cannot alter the rotation.
   *
   * A symbolic link is followed: the writer works on its target (`path` is
   * the target's; the lock and rotations sit beside it; the link stays).
   *
   * Throws `StorageOpenError` naming the file when its folder does not
   * exist, it is a directory, a dangling link, not a regular file (a FIFO,
   * a device), cannot be written, or the file system refuses (the original
   * error as `cause`), and `SessionLockedError` when another writer holds it.
   */
  static async open(file: string, options: ContextFileOptions = {}): Promise<JsonlContextFile> {
    const durability = checkDurability(options.durability);
    const absolute = path.resolve(file);
    let lock: SessionLock | null = null;
    try {
      const target = await resolveContextFile(absolute);
      if (options.lock !== false) lock = await SessionLock.acquire(target, { leaseMs: options.leaseMs });
      // Recovery touches files another writer could be using: only under the lock.
      if (lock !== null) await removeStaleTempFiles(target);
      let facts = await inspectFile(target);
      if (lock !== null && facts.links > 1) {
        await replaceWithCopy(target);
        facts = await inspectFile(target);
      }
      return new JsonlContextFile(target, durability, lock, facts);
    } catch (error) {
      await lock?.release();
      if (ContextStorageError.isInstance(error)) throw error;
      throw new StorageOpenError(absolute, error instanceof Error ? error.message : String(error), { cause: error });
    }
  }

  /** The file's absolute path (the {@link ContextLog} name for `path`). */
  get location(): string {
    return this.path;
  }

  /** Bytes in the file: everything acknowledged so far. */
  get size(): number {
    return this.#size;
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** I/O counters (appends only). */
  get stats(): Readonly<ContextFileStats> {
    return { ...this.#stats };
  }

  /**
   * Appends records, in call order with every other append and operation.
   * Records are validated and encoded at once (an invalid one rejects the
   * whole call with `MessageParseError` or `InvalidRecordError`, and nothing
   * of it is written). Resolves when the records are durable per the file's
   * durability; rejects with `StorageWriteError` if the write failed, in
   * which case none of these records is in the file, or with its subclass
   * `ContextFileChangedError` if another program changed the file (then
   * they may be in it, but were not acknowledged; see the class).
   */
  append(records: readonly ContextRecord[]): Promise<LogAppendReceipt> {
    let lines: string[];
    try {
      this.#assertWritable();
      lines = records.map(encodeRecord);
    } catch (error) {
      return Promise.reject(error);
    }
    return this[appendPrepared](lines);
  }

  /** @internal */
  [appendPrepared](lines: readonly string[]): Promise<LogAppendReceipt> {
    try {
      this.#assertWritable();
    } catch (error) {
      return Promise.reject(error);
    }
    const bytes = Buffer.from(lines.length === 0 ? "" : `${lines.join("\n")}\n`);
    return this.#queue.append(bytes);
  }

  /** Resolves once every append and operation called before it is done. */
  flush(): Promise<void> {
    return this.#enqueue(async () => undefined);
  }

  /**
   * Reads the file's records after every earlier append is committed,
   * calling `visit` for each, with byte offsets. Resolves to the report.
   */
  scan(visit: (scanned: ScannedRecord) => void, options: Omit<ScanOptions, "end"> = {}): Promise<RestoreReport> {
    return this.#enqueue(async () => {
      await this.#assertUnchanged();
      return scanContextFile(this.path, visit, { ...options, end: this.#size });
    });
  }

  /**
   * Reads the file into its state after every earlier append is committed:
   * damaged lines are skipped and listed in the report, checkpoint positions
   * are byte offsets.
   */
  read(options: Omit<ScanOptions, "end"> = {}): Promise<ContextLogState> {
    return this.#enqueue(async () => {
      await this.#assertUnchanged();
      return readContextFile(this.path, { ...options, end: this.#size });
    });
  }

  /**
   * Truncate-with-rotation: keeps bytes `[0, position)` as the current file
   * followed by `records`, and the whole old file as its next rotation
   * `<stem>_<N><ext>`, in one crash-safe step: the prefix and the records'
   * lines go into a temp file, which is fsynced and renamed over the file,
   * so after a crash the file is wholly old or wholly new. The kept prefix
   * is copied byte for byte, never re-parsed or re-serialized. `position`
   * must be the start of a line (0, or just after a newline) within the
   * file, else `InvalidOffsetError`; an invalid record rejects the call
   * (`MessageParseError`, `InvalidRecordError`) and nothing changes. This is
   * kimi-cli's `revert_to` (the checkpoint record's position) and `clear`
   * (0), with what follows them written in the same step. A missing file is
   * created empty first, so there is always a rotation.
   */
  truncateAndRotate(position: LogPosition, records: readonly ContextRecord[] = []): Promise<LogTruncation> {
    let lines: Buffer[];
    try {
      this.#assertWritable();
      lines = records.map((record) => Buffer.from(`${encodeRecord(record)}\n`, "utf8"));
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#enqueue(async () => {
      if (!Number.isSafeInteger(position) || position < 0) throw new InvalidOffsetError(position, "not a non-negative integer");
      if (position > this.#size) throw new InvalidOffsetError(position, `past the end of the file (${this.#size} bytes)`);
      await this.#assertUnchanged();
      await this.#ensureExists();
      // The byte before `position` comes with the last chunk the copy reads: checked there, before anything is linked or renamed.
      const atLineStart = (chunk: Buffer, at: number) => {
        if (at + chunk.length === position && chunk[chunk.length - 1] !== 10) throw new InvalidOffsetError(position, "not at the start of a line");
      };
      const tail = Buffer.concat(lines);
      const temp = tempPathFor(this.path);
      const rotation = await this.#replaceWith("truncate-with-rotation", temp, true, async () => {
        const source = await open(this.path, "r");
        try {
          await writeNewFileFrom(temp, source, 0, position, { check: atLineStart, tail, mode: await modeOfHandle(source) });
        } finally {
          await source.close();
        }
      });
      const positions: LogPosition[] = [];
      let end = position;
      for (const line of lines) {
        positions.push(end);
        end += line.length;
      }
      this.#size = end;
      this.#needsNewline = false;
      return { ...rotation!, positions, end };
    });
  }

  /**
   * Writes `records` before the current content (kimi-cli writes a late
   * system prompt this way): a temp file with the new lines and a byte copy
   * of the file, fsynced and renamed over it. Every position in the file
   * moves by the byte length of the new lines: read again afterwards.
   */
  prepend(records: readonly ContextRecord[]): Promise<LogPrepend> {
    let lines: string[];
    let prefix: Buffer;
    try {
      this.#assertWritable();
      lines = records.map(encodeRecord);
      prefix = Buffer.from(lines.map((line) => `${line}\n`).join(""), "utf8");
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#enqueue(async () => {
      await this.#assertUnchanged();
      const temp = tempPathFor(this.path);
      let start = 0;
      await this.#replaceWith("prepend", temp, false, async () => {
        const source = this.#exists ? await open(this.path, "r") : null;
        try {
          // A UTF-8 byte-order mark would land mid-file, before the old first line, making it unreadable: it is dropped.
          if (source !== null && (await startsWithBom(source))) start = UTF8_BOM.length;
          await writeNewFileFrom(temp, source, start, this.#size, { head: prefix, mode: source === null ? PRIVATE_FILE_MODE : await modeOfHandle(source) });
        } finally {
          await source?.close();
        }
      });
      this.#exists = true;
      this.#size += prefix.length - start;
      return { positions: lineStarts(0, lines), shift: prefix.length - start };
    });
  }

  /** The rotations of this file, lowest number first, with their notes (from `<file>.branches`). */
  listRotations(): Promise<LogRotationInfo[]> {
    return this.#enqueue(() => listRotations(this.path));
  }

  /** Appends `note` for rotation `n` to `<file>.branches` beside the file (`context.jsonl.branches`), synced. */
  annotateRotation(n: number, note: RotationNote): Promise<void> {
    let checked: RotationNote;
    try {
      this.#assertWritable();
      checked = checkRotationNote(note);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#enqueue(async () => {
      const size = await rotationSize(this.path, n);
      await appendRotationNote(this.path, n, size, checked);
    });
  }

  /**
   * Writes the current file's bytes followed by `records` into a synced temp
   * file renamed onto the next rotation name; the current file is not touched.
   */
  addRotation(records: readonly ContextRecord[]): Promise<LogRotation> {
    let tail: Buffer;
    try {
      this.#assertWritable();
      tail = Buffer.from(records.map((record) => `${encodeRecord(record)}\n`).join(""), "utf8");
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#enqueue(async () => {
      await this.#assertUnchanged();
      const source = this.#exists ? await open(this.path, "r") : null;
      try {
        // A last line torn by a crash gets its newline first, so the records start a line.
        const head = this.#needsNewline ? NEWLINE : Buffer.alloc(0);
        const copy = async (temp: string) => {
          const mode = source === null ? PRIVATE_FILE_MODE : await modeOfHandle(source);
          if (source === null) await writeNewFileFrom(temp, null, 0, 0, { tail, mode });
          else await writeNewFileFrom(temp, source, 0, this.#size, { tail: Buffer.concat([head, tail]), mode });
        };
        return await writeNextRotation(this.path, null, copy);
      } finally {
        await source?.close();
      }
    });
  }

  /**
   * Makes rotation `n` the current file again (undoing a revert or a clear):
   * the current file is kept as the next rotation and a synced copy of
   * rotation `n` is renamed over it. Rotation `n` itself stays, so this
   * too can be undone. Read the file again afterwards to get its state.
   */
  restoreRotation(n: number): Promise<LogRotationRestore> {
    return this.#enqueue(async () => {
      const source = rotationPath(this.path, n);
      try {
        if (!(await stat(source)).isFile()) throw new RotationNotFoundError(this.path, n);
      } catch (error) {
        if (hasCode(error, "ENOENT")) throw new RotationNotFoundError(this.path, n);
        throw error;
      }
      const temp = tempPathFor(this.path);
      const savedAs = await this.#replaceWith(`restoring rotation ${n}`, temp, this.#exists, async () => copyToNewFile(source, temp, await modeOf(this.path)));
      const facts = await inspectFile(this.path);
      this.#exists = true;
      this.#dev = facts.dev;
      this.#ino = facts.ino;
      this.#size = facts.size;
      this.#needsNewline = !facts.endsWithNewline;
      return { restored: { n, location: source }, savedAs };
    });
  }

  /**
   * Reads rotation `n` (`<stem>_<n><ext>`) into its state, damaged lines
   * skipped and reported as {@link read} does; the file is not changed.
   */
  readRotation(n: number): Promise<ContextLogState> {
    return this.#enqueue(async () => {
      const source = rotationPath(this.path, n);
      try {
        if (!Number.isSafeInteger(n) || n < 1 || !(await stat(source)).isFile()) throw new RotationNotFoundError(this.path, n);
      } catch (error) {
        if (hasCode(error, "ENOENT")) throw new RotationNotFoundError(this.path, n);
        throw error;
      }
      return readContextFile(source);
    });
  }

  /**
   * Commits every pending append, closes the file and releases the lock.
   * Later calls reject with `StorageClosedError`. Idempotent.
   */
  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#closed = true;
    this.#closing = this.#queue
      .run(async () => undefined)
      .catch(() => undefined)
      .then(async () => {
        try {
          await this.#closeHandle();
        } finally {
          await this.#lock?.release();
        }
      });
    return this.#closing;
  }

  /** `close()`, for `await using file = await JsonlContextFile.open(...)`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * Replaces the current file by the new file `temp`, which `write` creates,
   * writes and syncs. With `keepOld`, the current file is then linked as its
   * next rotation (durable once the link's directory sync is done). Then
   * `temp` is renamed over the current file and the directory synced. If the
   * rename does not happen, the rotation is dropped again and the temp file
   * deleted, and a file-system error (a full disk) is a `StorageWriteError`
   * naming the operation.
   */
  async #replaceWith(operation: string, temp: string, keepOld: boolean, write: () => Promise<void>): Promise<LogRotation | null> {
    let rotation: LogRotation | null = null;
    try {
      await write();
      if (keepOld) rotation = await linkNextRotation(this.path);
      await this.#closeHandle();
      const made = await stat(temp);
      await rename(temp, this.path);
      this.#dev = made.dev;
      this.#ino = made.ino;
      await fsyncDirectory(this.#dir);
    } catch (error) {
      await unlinkQuietly(temp);
      // Unless the rename happened, the rotation still shares the current file's inode: drop it again.
      if (rotation !== null && (await sameFile(rotation.location, this.path))) await unlinkQuietly(rotation.location);
      if (ContextStorageError.isInstance(error)) throw error;
      throw new StorageWriteError(`${operation} of ${this.path} failed, the file is unchanged: ${(error as Error).message}`, { cause: error });
    }
    return rotation;
  }

  /** Throws (and marks the file broken) if another program changed the file since this writer last wrote it. */
  async #assertUnchanged(): Promise<void> {
    if (this.#broken) throw this.#broken;
    const changed = await checkWritten(this.path, this.#written());
    if (changed === null) return;
    this.#broken = changed;
    throw changed;
  }

  #written() {
    return { exists: this.#exists, dev: this.#dev, ino: this.#ino, size: this.#size };
  }

  #assertWritable(): void {
    if (this.#closed) throw new StorageClosedError(`${this.path} is closed`);
    if (this.#broken) throw this.#broken;
  }

  #enqueue<T>(op: () => Promise<T>): Promise<T> {
    try {
      this.#assertWritable();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#queue.run(op);
  }

  /** Writes a batch of appends as one buffer (one write, one fsync per durability): their receipts, or the error for all. */
  async #commit(batch: Buffer[]): Promise<LogAppendReceipt[]> {
    if (this.#broken) throw this.#broken;
    const start = this.#size;
    let bytes = 0;
    for (const item of batch) bytes += item.length;
    let lead = 0;
    if (bytes > 0) {
      lead = this.#needsNewline ? 1 : 0;
      const buffer = Buffer.concat(lead === 1 ? [NEWLINE, ...batch] : batch);
      let handle: FileHandle | null = null;
      let changed: ReturnType<typeof compareWritten> = null;
      try {
        handle = await this.#appendHandle();
        await writeAll(handle, [buffer]);
        // The fdatasync goes to the thread pool first; meanwhile, one look at the path after the write: is the file
        // there still the one this writer wrote, with exactly its bytes? That rules out a foreign append before these
        // records (they would be glued to its bytes), a truncate, a rename or a replacement, before anything is
        // acknowledged, and costs the append nothing beyond its write and fdatasync.
        const synced = this.durability === "none" ? null : handle.datasync();
        // Awaited below, or dropped when the look throws or finds a change (the records are then not acknowledged).
        synced?.catch(() => undefined);
        changed = compareWritten(this.path, { ...this.#written(), size: start + buffer.length }, statOrNullNow(this.path));
        if (changed !== null) await synced?.catch(() => undefined);
        else {
          this.#stats.writes += 1;
          if (synced !== null) {
            await synced;
            this.#stats.syncs += 1;
          }
        }
      } catch (cause) {
        const error = ContextFileChangedError.isInstance(cause) ? cause : new StorageWriteError(`appending to ${this.path} failed: ${(cause as Error).message}`, { cause });
        if (handle !== null) await this.#rollBack(start, error);
        throw error;
      }
      if (changed !== null) {
        // Not acknowledged: take the records back out of whatever file they went to, leaving the foreign bytes.
        if (handle !== null) await takeBack(handle, buffer);
        throw (this.#broken = changed);
      }
      this.#needsNewline = false;
      this.#size = start + lead + bytes;
      this.#stats.bytes += bytes;
    }
    let position = start + lead;
    return batch.map((item) => {
      const receipt = { position, end: position + item.length };
      position = receipt.end;
      return receipt;
    });
  }

  /** Cuts off a failed batch; if that fails too, the file is broken. */
  async #rollBack(size: number, error: StorageWriteError): Promise<void> {
    try {
      await this.#handle!.truncate(size);
    } catch {
      this.#broken = error;
    }
  }

  async #appendHandle(): Promise<FileHandle> {
    if (this.#handle) return this.#handle;
    // Created exclusively: a file that appeared since the check is another program's.
    // Readable too, so that records a foreign change kept from being acknowledged can be recognised and taken back.
    let handle: FileHandle;
    try {
      handle = await open(this.path, this.#exists ? "a+" : "ax+", PRIVATE_FILE_MODE);
    } catch (error) {
      if (!hasCode(error, "EEXIST")) throw error;
      throw (this.#broken = new ContextFileChangedError(this.path, "created", "it appeared before this writer created it"));
    }
    this.#handle = handle;
    if (!this.#exists) {
      const info = await handle.stat();
      this.#exists = true;
      this.#dev = info.dev;
      this.#ino = info.ino;
      if (this.durability !== "none") await fsyncDirectory(this.#dir);
    }
    return handle;
  }

  async #ensureExists(): Promise<void> {
    if (this.#exists) return;
    await this.#appendHandle();
  }

  async #closeHandle(): Promise<void> {
    const handle = this.#handle;
    this.#handle = null;
    await handle?.close();
  }
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** The size of rotation `n` of `file`; `RotationNotFoundError` when there is none. */
async function rotationSize(file: string, n: number): Promise<number> {
  try {
    const info = await stat(rotationPath(file, n));
    if (info.isFile() && Number.isSafeInteger(n) && n > 0) return info.size;
  } catch (error) {
    if (!hasCode(error, "ENOENT", "ENOTDIR")) throw error;
  }
  throw new RotationNotFoundError(file, n);
}

async function startsWithBom(handle: FileHandle): Promise<boolean> {
  const head = Buffer.alloc(UTF8_BOM.length);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  return bytesRead === head.length && head.equals(UTF8_BOM);
}

async function modeOfHandle(handle: FileHandle): Promise<number> {
  return (await handle.stat()).mode & 0o7777;
}

async function sameFile(a: string, b: string): Promise<boolean> {
  try {
    const [x, y] = await Promise.all([stat(a), stat(b)]);
    return x.ino === y.ino && x.dev === y.dev;
  } catch {
    return false;
  }
}

/** Where each of `lines` (without their newlines, written one after another from `start`) starts, in bytes. */
function lineStarts(start: LogPosition, lines: readonly string[]): LogPosition[] {
  const starts: LogPosition[] = [];
  let at = start;
  for (const line of lines) {
    starts.push(at);
    at += Buffer.byteLength(line) + 1;
  }
  return starts;
}
