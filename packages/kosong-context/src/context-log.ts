/**
 * The record-level contract a checkpointed context stands on (@kosong/soul's
 * `Context`): an append-only log of context records with crash-safe
 * truncate-with-rotation. `JsonlContextFile` implements it on kimi-cli's
 * `context.jsonl`, `MemoryContextLog` in memory; a database log implements
 * the same interface, and `describeContextLogContract` (in
 * `@kosong/context/testing`) checks any implementation.
 */
import type { Message } from "@kosong/core";
import type { ContextRecord } from "./context-record.js";
import type { RestoreReport } from "./restore-report.js";
import type { RotationNote } from "./rotation-note.js";

/**
 * A position in a log: where a record starts. Opaque to callers (a byte
 * offset in a file, a sequence number in a database): pass back only
 * positions the same log returned since its last whole-log operation. The
 * start of every log is position 0.
 */
export type LogPosition = number;

/**
 * A `_checkpoint` record and the state just before it: what reverting to
 * this checkpoint restores (kimi-cli's `revert_to(id)` keeps everything
 * before the first `_checkpoint` record with that id).
 */
export interface LogCheckpoint {
  id: number;
  /** The optional label stored with the checkpoint (an extra key kimi-cli ignores). */
  label?: string;
  /** Where the `_checkpoint` record starts: truncate here to revert to it. */
  position: LogPosition;
  /** Messages before the checkpoint. */
  messageCount: number;
  /** Token count before the checkpoint. */
  tokenCount: number;
  /** Messages before the last `_usage` record before the checkpoint (0 without one). */
  messagesBeforeLastUsage: number;
  /** System prompt before the checkpoint. */
  systemPrompt: string | null;
  /** Next checkpoint id before the checkpoint. */
  nextCheckpointId: number;
}

/** Everything a log folds to, as kimi-cli's `Context.restore()` folds its file. */
export interface ContextLogState {
  /** Messages in log order (validated; unreadable records are in `report.skipped`). */
  messages: Message[];
  /** The last `_usage` token count, 0 without one. */
  tokenCount: number;
  /** How many messages preceded the last `_usage` record (0 without one). */
  messagesBeforeLastUsage: number;
  /** The last `_system_prompt`, null without one. */
  systemPrompt: string | null;
  /** The last `_checkpoint` id + 1 (kimi-cli's `n_checkpoints`), 0 without one. */
  nextCheckpointId: number;
  /** Every `_checkpoint` record in log order. */
  checkpoints: LogCheckpoint[];
  /** How many other `_` records were seen (kept, ignored here). */
  otherRecords: number;
  /** What was read and what was skipped. */
  report: RestoreReport;
}

/** Options of {@link ContextLog.read}. */
export interface LogReadOptions {
  /** How far the read got: units done and in all (bytes for a file), called as it goes. */
  onProgress?: (done: number, total: number) => void;
}

/** Where an append landed. */
export interface LogAppendReceipt {
  /** Where the first appended record starts (truncate here to undo the append). */
  position: LogPosition;
  /** Just past the last appended record. */
  end: LogPosition;
}

/** Where a prepend put its records, and how it moved the others. */
export interface LogPrepend {
  /** Where each prepended record starts, in order. */
  positions: LogPosition[];
  /**
   * How far the records already in the log moved: a position given out
   * before the prepend is now that position plus `shift` (so a checkpoint
   * known before stays known without reading the log again).
   */
  shift: number;
}

/** A complete earlier version of a log, kept by a whole-log operation. */
export interface LogRotation {
  /** Its number (1, 2, ...), the next free one when it was made. */
  n: number;
  /** Where it is kept, for people: a file path, or a name in a database. */
  location: string;
}

/**
 * The outcome of {@link ContextLog.truncateAndRotate}: the rotation that
 * keeps the old log, and where the records written after the kept prefix
 * landed.
 */
export interface LogTruncation extends LogRotation {
  /** Where each written record starts, in order (empty when none were given): a checkpoint's position among them. */
  positions: LogPosition[];
  /** Where the log now ends: the next append starts here. */
  end: LogPosition;
}

/** A rotation as listed. */
export interface LogRotationInfo extends LogRotation {
  /** Its size in the log's unit (bytes for files, records in memory). */
  size: number;
  /** When it was last written, in ms since the epoch. */
  mtimeMs: number;
  /** What it is as a branch, when a note was stored with it ({@link ContextLog.annotateRotation}). */
  note?: RotationNote;
}

/** The outcome of {@link ContextLog.restoreRotation}. */
export interface LogRotationRestore {
  /** The rotation whose content is now the current log (it is kept too). */
  restored: LogRotation;
  /** Where the replaced current log was kept, null if it was empty and never written. */
  savedAs: LogRotation | null;
}

/**
 * An append-only log of context records. Every method runs in call order
 * with the others. After `close()` every method rejects with
 * `StorageClosedError`.
 *
 * Crash safety (implementations that persist): an append is acknowledged
 * only once durable; a whole-log operation (truncate, prepend, restore) leaves
 * the log wholly old or wholly new, and every rotation complete.
 */
export interface ContextLog extends AsyncDisposable {
  /** Where the log lives, for messages: a file path, or a name. */
  readonly location: string;
  /**
   * Appends records in order. An invalid record rejects the whole call and
   * nothing of it is written (`MessageParseError`, `InvalidRecordError`).
   */
  append(records: readonly ContextRecord[]): Promise<LogAppendReceipt>;
  /**
   * Reads the log into its state, after every earlier append. A log that
   * knows its size reports how far the read got through
   * `options.onProgress` (a file: bytes read and its size); others may
   * never call it.
   */
  read(options?: LogReadOptions): Promise<ContextLogState>;
  /**
   * Keeps `[0, position)` followed by `records` as the current log, and the
   * whole old log as the next rotation (kimi-cli's `revert_to` and, at 0,
   * `clear`). It is one step: a crash leaves the log wholly old or wholly
   * the prefix and `records`, never the prefix alone, so a replacement (a
   * compaction: clear, system prompt, checkpoint, messages; a revert and
   * what follows it) written through `records` cannot lose the old content
   * without the new. The records are validated first: an invalid one
   * rejects the call (`MessageParseError`, `InvalidRecordError`) and nothing
   * changes. A position the log did not give out is `InvalidOffsetError`.
   */
  truncateAndRotate(position: LogPosition, records?: readonly ContextRecord[]): Promise<LogTruncation>;
  /** Writes `records` before the current content (a late system prompt). Positions move, by the returned `shift`. */
  prepend(records: readonly ContextRecord[]): Promise<LogPrepend>;
  /** The rotations, lowest number first, each with its note when one was stored. */
  listRotations(): Promise<LogRotationInfo[]>;
  /**
   * Stores `note` with rotation `n` (replacing an earlier one): what the
   * rotation is as a branch, so that listing branches reads no rotation.
   * A crash may lose a note (the rotation is then listed without one), never
   * a rotation. Unknown `n`: `RotationNotFoundError`; an invalid note:
   * `InvalidRecordError`.
   */
  annotateRotation(n: number, note: RotationNote): Promise<void>;
  /**
   * Keeps the current log followed by `records` as a new rotation (the next
   * number), leaving the current log as it is, byte for byte: a side branch
   * (a question asked beside the conversation, kept). The rotation is
   * complete or absent after a crash. Invalid records reject the call
   * (`MessageParseError`, `InvalidRecordError`) and nothing is made.
   */
  addRotation(records: readonly ContextRecord[]): Promise<LogRotation>;
  /**
   * Makes rotation `n` the current log again (undoing a revert, a clear or a
   * compaction); the replaced log is kept as the next rotation. Unknown `n`:
   * `RotationNotFoundError`.
   */
  restoreRotation(n: number): Promise<LogRotationRestore>;
  /**
   * Reads rotation `n` into its state without changing anything (what a
   * compaction or a revert replaced, for a recall). Unknown `n`:
   * `RotationNotFoundError`.
   */
  readRotation(n: number): Promise<ContextLogState>;
  /** Finishes pending appends and releases the log (its lock, its handle). Idempotent. */
  close(): Promise<void>;
}
