/**
 * The reader of the context-file format: streams a file in chunks, splits it
 * into lines at byte level, and hands every record to a visitor together with
 * its line number and byte offsets. Damaged lines (blank, torn, invalid
 * UTF-8, not JSON, not an object, no role, invalid message or record) are
 * skipped and reported; reading never throws for content and never writes.
 */
import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { isUtf8 } from "node:buffer";
import path from "node:path";
import { decodeRecordLine, type ContextRecord, type DamageKind } from "./context-record.js";
import { hasCode } from "./durable-fs.js";
import { StorageOpenError } from "./errors.js";
import { missingFileReport, type RestoreReport, type SkippedLine } from "./restore-report.js";

/** A record and where it sits in the file. */
export interface ScannedRecord {
  record: ContextRecord;
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte: truncating here removes this record and everything after it. */
  offset: number;
  /** Byte offset just past the line's newline (the next line's offset). */
  end: number;
}

/** Options of {@link scanContextFile}. */
export interface ScanOptions {
  /** Stop at this byte offset (default: the end of the file). */
  end?: number;
  /** Called for every skipped line, as it is found (the report lists them too). */
  onSkip?: (skipped: SkippedLine) => void;
  /** Read buffer size in bytes (default 1 MiB); a line longer than this grows the buffer. */
  chunkSize?: number;
  /** Called after each chunk is read: bytes read so far, and the bytes the scan reads in all (the file's size, or `end`). */
  onProgress?: (bytesRead: number, totalBytes: number) => void;
}

const DEFAULT_CHUNK = 1024 * 1024;
const NEWLINE = 10;
const OPEN_BRACE = 123;

function isBlank(buffer: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) {
    const byte = buffer[i]!;
    if (byte !== 32 && byte !== 9 && byte !== 13 && byte !== 11 && byte !== 12) return false;
  }
  return true;
}

/**
 * Reads the context file at `file`, calling `visit` for each record in file
 * order. Resolves to the report: line counts and every skipped line. A
 * missing file is not an error (`exists: false`); a directory, a FIFO or
 * any other file that is not a regular file, or one that cannot be opened
 * for reading, is a `StorageOpenError`.
 */
export async function scanContextFile(
  file: string,
  visit: (scanned: ScannedRecord) => void,
  options: ScanOptions = {},
): Promise<RestoreReport> {
  const absolute = path.resolve(file);
  let handle: FileHandle;
  try {
    // Non-blocking: opening a FIFO waits for a writer otherwise (it is refused below).
    handle = await open(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if (hasCode(error, "ENOENT")) return missingFileReport(absolute);
    throw new StorageOpenError(absolute, `it cannot be read (${(error as Error).message})`, { cause: error });
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new StorageOpenError(absolute, "it is a directory");
    if (!info.isFile()) throw new StorageOpenError(absolute, "it is not a regular file (a FIFO, socket or device)");
    return await scanHandle(handle, absolute, visit, options, info.size);
  } finally {
    await handle.close();
  }
}

async function scanHandle(
  handle: FileHandle,
  file: string,
  visit: (scanned: ScannedRecord) => void,
  options: ScanOptions,
  size: number,
): Promise<RestoreReport> {
  const limit = options.end ?? Number.POSITIVE_INFINITY;
  const total = Math.min(limit, size);
  const { onSkip, onProgress } = options;
  const report: RestoreReport = { path: file, exists: true, bytes: 0, lines: 0, records: 0, skipped: [], endsWithNewline: true };
  let buffer = Buffer.allocUnsafeSlow(Math.max(16, options.chunkSize ?? DEFAULT_CHUNK));
  /** File offset of `buffer[0]`. */
  let base = 0;
  /** Unconsumed bytes are `buffer[start, length)`. */
  let start = 0;
  let length = 0;
  let eof = false;
  let lineNumber = 0;

  const skip = (offset: number, size: number, kind: DamageKind, reason: string): void => {
    const skipped: SkippedLine = { line: lineNumber, offset, length: size, kind, reason };
    report.skipped.push(skipped);
    onSkip?.(skipped);
  };

  while (!eof) {
    if (start > 0) {
      buffer.copy(buffer, 0, start, length);
      base += start;
      length -= start;
      start = 0;
    }
    if (length === buffer.length) {
      const grown = Buffer.allocUnsafeSlow(buffer.length * 2);
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const want = Math.min(buffer.length - length, limit - (base + length));
    const bytesRead = want > 0 ? (await handle.read(buffer, length, want, base + length)).bytesRead : 0;
    if (bytesRead === 0) eof = true;
    length += bytesRead;
    onProgress?.(base + length, Math.max(total, base + length));

    const view = buffer.subarray(0, length);
    // Lines that end inside the buffer; at end of file, the rest is the last line.
    const complete = eof ? length : view.lastIndexOf(NEWLINE, length - 1) + 1;
    if (complete <= start) continue;
    const validUtf8 = isUtf8(view.subarray(start, complete));
    let pos = start;
    // A UTF-8 byte-order mark before the first line is not part of it.
    if (lineNumber === 0 && complete >= 3 && view[0] === 0xef && view[1] === 0xbb && view[2] === 0xbf) pos = 3;
    while (pos < complete) {
      let newline = view.indexOf(NEWLINE, pos);
      const hasNewline = newline !== -1 && newline < complete;
      if (!hasNewline) newline = complete;
      lineNumber += 1;
      const lineStart = pos;
      const offset = lineNumber === 1 ? 0 : base + lineStart;
      const lineEnd = hasNewline ? newline + 1 : newline;
      pos = lineEnd;
      const size = newline - lineStart;

      if (view[lineStart] !== OPEN_BRACE && isBlank(view, lineStart, newline)) {
        skip(offset, size, "blank", "blank line");
        continue;
      }
      if (!validUtf8 && !isUtf8(view.subarray(lineStart, newline))) {
        if (hasNewline) skip(offset, size, "invalid-utf8", "not valid UTF-8");
        else skip(offset, size, "torn", "last line is incomplete (no newline) and not valid UTF-8");
        continue;
      }
      const decoded = decodeRecordLine(view.toString("utf8", lineStart, newline));
      if (!decoded.ok) {
        if (!hasNewline && decoded.kind === "invalid-json") skip(offset, size, "torn", `last line is incomplete (no newline): ${decoded.reason}`);
        else skip(offset, size, decoded.kind, decoded.reason);
        continue;
      }
      report.records += 1;
      visit({ record: decoded.record, line: lineNumber, offset, end: base + lineEnd });
    }
    if (eof && complete > 0) report.endsWithNewline = view[complete - 1] === NEWLINE;
    start = complete;
  }
  report.bytes = base + length;
  report.lines = lineNumber;
  return report;
}
