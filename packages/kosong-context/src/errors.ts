/**
 * Error classes of @kosong/context.
 *
 * Like @kosong/core's errors, each class names a `brand` (core's
 * `KosongError` mechanism), so its inherited static `isInstance(value)`
 * recognises an error from another installed copy of the package.
 */
import { KosongError, type KosongErrorOptions } from "@kosong/core";

/** The root of every error @kosong/context throws on purpose. */
export class ContextStorageError extends KosongError {
  static override readonly brand: string = "@kosong/context.error.ContextStorageError";
}

/** `restore()` was called on a storage that was already appended to or restored. */
export class StorageAlreadyModifiedError extends ContextStorageError {
  static override readonly brand: string = "@kosong/context.error.StorageAlreadyModifiedError";

  constructor(message = "The storage is already modified", options: KosongErrorOptions = {}) {
    super(message, options);
  }
}

/** An operation on a storage or context file after `close()`. */
export class StorageClosedError extends ContextStorageError {
  static override readonly brand: string = "@kosong/context.error.StorageClosedError";

  constructor(message = "The storage is closed", options: KosongErrorOptions = {}) {
    super(message, options);
  }
}

/**
 * A context file cannot be opened: its folder does not exist, the path is a
 * directory, permission is denied, ... The message names the file and the
 * problem; `cause` is the underlying file-system error where there is one.
 * Opening never creates folders: create the session folder first.
 */
export class StorageOpenError extends ContextStorageError {
  static override readonly brand: string = "@kosong/context.error.StorageOpenError";

  /** The file that was to be opened (absolute). */
  readonly path: string;

  constructor(path: string, problem: string, options: KosongErrorOptions = {}) {
    super(`cannot open ${path}: ${problem}`, options);
    this.path = path;
  }
}

/** Who holds a session lock, as written in the lock file. */
export interface LockOwner {
  pid: number;
  hostname: string | null;
}

/** Another live writer (another process, or another open handle in this one) holds the session file. */
export class SessionLockedError extends ContextStorageError {
  static override readonly brand: string = "@kosong/context.error.SessionLockedError";

  /** The session file that was to be opened. */
  readonly path: string;
  /** The lock file (`<path>.lock`). */
  readonly lockPath: string;
  /** The holder recorded in the lock file. */
  readonly owner: LockOwner;

  /**
   * `held` says what holds it, for the message (default `lock file <lockPath>`;
   * the Postgres store names its advisory lock).
   */
  constructor(path: string, lockPath: string, owner: LockOwner, detail: string, held = `lock file ${lockPath}`) {
    super(`${path} is in use by ${detail} (${held})`);
    this.path = path;
    this.lockPath = lockPath;
    this.owner = owner;
  }
}

/**
 * A record given to an append is not writable: a token count or checkpoint id
 * that is not a non-negative integer, a system prompt that is not a string,
 * an internal record whose role does not start with `_` or whose value is not
 * plain JSON. Invalid messages are reported by @kosong/core's
 * `MessageParseError` instead.
 */
export class InvalidRecordError extends ContextStorageError {
  static override readonly brand: string = "@kosong/context.error.InvalidRecordError";
}

/** A truncation offset that is not the start of a line inside the file. */
export class InvalidOffsetError extends ContextStorageError {
  static override readonly brand: string = "@kosong/context.error.InvalidOffsetError";

  readonly offset: number;

  constructor(offset: number, problem: string) {
    super(`invalid truncation offset ${offset}: ${problem}`);
    this.offset = offset;
  }
}

/** `restoreRotation(n)` named a rotation that does not exist. */
export class RotationNotFoundError extends ContextStorageError {
  static override readonly brand: string = "@kosong/context.error.RotationNotFoundError";

  readonly n: number;

  constructor(path: string, n: number) {
    super(`no rotation ${n} of ${path}`);
    this.n = n;
  }
}

/**
 * Writing to the context file failed (disk full, I/O error, ...); `cause` is
 * the file system's error. The records of a failed append are not in the
 * file: the bytes of the failed batch are cut off again, and earlier records
 * are untouched. When even that cut fails, the file is marked broken and
 * every later operation fails with this error too; reopen the file to
 * continue (restore skips a torn last line). A failed whole-file operation
 * (truncate-with-rotation, prepend, restoring a rotation) leaves the file
 * and its rotations as they were.
 */
export class StorageWriteError extends ContextStorageError {
  static override readonly brand: string = "@kosong/context.error.StorageWriteError";
}

/** How another program changed a context file behind its writer's back. */
export type ContextFileChange = "appended" | "truncated" | "replaced" | "removed" | "created";

/**
 * Another program (kimi-cli, an editor, a script: anything that does not
 * take the file's lock) changed the context file since this writer last
 * wrote it: bytes were appended or cut off, the file was renamed away or
 * replaced by another (kimi-cli's revert renames `context.jsonl` to
 * `context_N.jsonl` and writes a new one), or it was created while this
 * writer had not yet created it.
 *
 * The writer checks before every append batch and whole-file operation
 * (and, for appends, again after the write) by comparing the file's device,
 * inode and size with what it last wrote. On a change it writes nothing
 * more: the append is rejected (never acknowledged, so every acknowledged
 * record is one a restore returns), and so is every later operation on this
 * handle, because its idea of the file (size, positions) is no longer true.
 * Close it and open the file again (restore) to go on from what is there
 * now; nothing is rewritten or deleted.
 */
export class ContextFileChangedError extends StorageWriteError {
  static override readonly brand: string = "@kosong/context.error.ContextFileChangedError";

  /** The context file (absolute). */
  readonly path: string;
  /** What happened to it. */
  readonly change: ContextFileChange;

  constructor(path: string, change: ContextFileChange, detail: string) {
    super(`${path} was ${change} by another program (${detail}); nothing more is written through this handle: open the file again to go on from what it holds now`);
    this.path = path;
    this.change = change;
  }
}
