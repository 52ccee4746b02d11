/**
 * What a read of a context file found: how many lines, how many records, and
 * every line that was skipped, with its position and the reason.
 */
import type { DamageKind } from "./context-record.js";

/** A line that was not read as a record. */
export interface SkippedLine {
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Byte length of the line, without its newline. */
  length: number;
  kind: DamageKind;
  /** A human-readable reason, e.g. `not valid JSON (...)` or `invalid message at content[0].type: ...`. */
  reason: string;
}

/** The outcome of reading a context file. Reading never modifies the file. */
export interface RestoreReport {
  /** The file that was read (absolute). */
  path: string;
  /** False when the file does not exist (then everything else is empty). */
  exists: boolean;
  /** Bytes read. */
  bytes: number;
  /** Lines seen, a last line without a newline included. */
  lines: number;
  /** Lines read as records. */
  records: number;
  /** Lines skipped, in file order. */
  skipped: SkippedLine[];
  /**
   * False when the last line has no newline: a torn write (then it is also
   * in `skipped`) or a file written without a final newline. The next append
   * writes a newline first, so the new record starts on its own line.
   */
  endsWithNewline: boolean;
}

/** The report of a file that does not exist. */
export function missingFileReport(path: string): RestoreReport {
  return { path, exists: false, bytes: 0, lines: 0, records: 0, skipped: [], endsWithNewline: true };
}
