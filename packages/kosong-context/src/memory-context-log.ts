/**
 * A {@link ContextLog} in memory: for tests and short-lived agents. It keeps
 * each record as its JSONL line, so what it stores, validates and reads back
 * is exactly what a context file would; a position is a record's index.
 */
import type { ContextLog, ContextLogState, LogAppendReceipt, LogPosition, LogPrepend, LogRotation, LogRotationInfo, LogRotationRestore, LogTruncation } from "./context-log.js";
import { decodeRecordLine, encodeRecord, type ContextRecord } from "./context-record.js";
import { ContextStateBuilder } from "./context-state.js";
import { InvalidOffsetError, RotationNotFoundError, StorageClosedError } from "./errors.js";
import { checkRotationNote, type RotationNote } from "./rotation-note.js";

interface StoredRotation {
  lines: readonly string[];
  mtimeMs: number;
  note?: RotationNote;
}

/** Records in memory; rotations are kept in memory too, until the log is dropped. */
export class MemoryContextLog implements ContextLog {
  /** The log's name, for messages (default `"memory"`). */
  readonly location: string;
  #lines: string[] = [];
  /** False until something is written (then a restored rotation saves the replaced log). */
  #written = false;
  readonly #rotations = new Map<number, StoredRotation>();
  #closed = false;

  constructor(location = "memory") {
    this.location = location;
  }

  /** Validates and stores `records`; positions are record indexes. */
  append(records: readonly ContextRecord[]): Promise<LogAppendReceipt> {
    return this.#run(() => {
      const lines = records.map(encodeRecord);
      const position = this.#lines.length;
      this.#lines.push(...lines);
      if (lines.length > 0) this.#written = true;
      return { position, end: this.#lines.length };
    });
  }

  /** Decodes the stored lines into the state (always without damage: only valid records are stored). */
  read(): Promise<ContextLogState> {
    return this.#run(() => this.#fold(this.#lines, this.location, this.#written));
  }

  readRotation(n: number): Promise<ContextLogState> {
    return this.#run(() => {
      const rotation = this.#rotations.get(n);
      if (rotation === undefined) throw new RotationNotFoundError(this.location, n);
      return this.#fold(rotation.lines, this.#rotationName(n), true);
    });
  }

  /**
   * Keeps records `[0, position)` followed by `records` (validated first:
   * an invalid one changes nothing); the whole old log becomes the next
   * rotation.
   */
  truncateAndRotate(position: LogPosition, records: readonly ContextRecord[] = []): Promise<LogTruncation> {
    return this.#run(() => {
      const lines = records.map(encodeRecord);
      if (!Number.isSafeInteger(position) || position < 0) throw new InvalidOffsetError(position, "not a non-negative integer");
      if (position > this.#lines.length) throw new InvalidOffsetError(position, `past the end of the log (${this.#lines.length} records)`);
      const rotation = this.#rotate();
      this.#written = true;
      this.#lines = [...this.#lines.slice(0, position), ...lines];
      return { ...rotation, positions: lines.map((_, i) => position + i), end: this.#lines.length };
    });
  }

  /** Writes `records` before the current content; positions move by their count. */
  prepend(records: readonly ContextRecord[]): Promise<LogPrepend> {
    return this.#run(() => {
      const lines = records.map(encodeRecord);
      this.#lines = [...lines, ...this.#lines];
      this.#written = true;
      return { positions: lines.map((_, i) => i), shift: lines.length };
    });
  }

  listRotations(): Promise<LogRotationInfo[]> {
    return this.#run(() =>
      [...this.#rotations.entries()]
        .sort(([a], [b]) => a - b)
        .map(([n, { lines, mtimeMs, note }]) => ({ n, location: this.#rotationName(n), size: lines.length, mtimeMs, ...(note && { note: { ...note } }) })),
    );
  }

  annotateRotation(n: number, note: RotationNote): Promise<void> {
    return this.#run(() => {
      const checked = checkRotationNote(note);
      const rotation = this.#rotations.get(n);
      if (rotation === undefined) throw new RotationNotFoundError(this.location, n);
      rotation.note = checked;
    });
  }

  /** Keeps the current records and `records` (validated first) as the next rotation; the current log is unchanged. */
  addRotation(records: readonly ContextRecord[]): Promise<LogRotation> {
    return this.#run(() => this.#rotate([...this.#lines, ...records.map(encodeRecord)]));
  }

  restoreRotation(n: number): Promise<LogRotationRestore> {
    return this.#run(() => {
      const rotation = this.#rotations.get(n);
      if (rotation === undefined) throw new RotationNotFoundError(this.location, n);
      const savedAs = this.#written ? this.#rotate() : null;
      this.#lines = [...rotation.lines];
      this.#written = true;
      return { restored: { n, location: this.#rotationName(n) }, savedAs };
    });
  }

  /** Releases nothing (there is nothing to release); later calls reject with `StorageClosedError`. */
  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Keeps `lines` (default: the current lines) as the next rotation. */
  #rotate(lines: readonly string[] = this.#lines): LogRotation {
    const n = Math.max(0, ...this.#rotations.keys()) + 1;
    this.#rotations.set(n, { lines, mtimeMs: Date.now() });
    return { n, location: this.#rotationName(n) };
  }

  #fold(stored: readonly string[], path: string, exists: boolean): ContextLogState {
    const builder = new ContextStateBuilder();
    let bytes = 0;
    stored.forEach((line, position) => {
      bytes += Buffer.byteLength(line) + 1;
      const decoded = decodeRecordLine(line);
      if (decoded.ok) builder.apply(decoded.record, position);
    });
    const lines = stored.length;
    return builder.finish({ path, exists, bytes, lines, records: lines, skipped: [], endsWithNewline: true });
  }

  #rotationName(n: number): string {
    return `${this.location}_${n}`;
  }

  /** Runs `op` unless the log is closed, turning a throw into a rejection. */
  #run<T>(op: () => T): Promise<T> {
    try {
      if (this.#closed) throw new StorageClosedError(`${this.location} is closed`);
      return Promise.resolve(op());
    } catch (error) {
      return Promise.reject(error);
    }
  }
}
