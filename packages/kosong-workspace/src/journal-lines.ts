/**
 * The lines of an open journal file, read in chunks from the start: each
 * complete line (ending in a newline) with its byte offset, and where a
 * torn last line (no newline) starts. Memory stays at about one chunk and
 * the longest line, whatever the file's size.
 */
import type { FileHandle } from "node:fs/promises";

/** A complete line: its text (without the newline) and where it starts. */
export interface JournalLine {
  text: string;
  offset: number;
}

const CHUNK = 1 << 20;
const NEWLINE = 10;

/**
 * Calls `visit` for each complete line of `handle` in order,
 * and resolves to the offset of a torn last line (bytes after the last
 * newline), or null when the file ends with a newline or is empty.
 */
export async function readJournalLines(handle: FileHandle, visit: (line: JournalLine) => void): Promise<number | null> {
  let buffer = Buffer.allocUnsafe(CHUNK);
  /** File offset of `buffer[0]`; `buffer[0, length)` holds unread bytes. */
  let base = 0;
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      const grown = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, base + length);
    if (bytesRead === 0) return length > 0 ? base : null;
    length += bytesRead;
    let start = 0;
    for (let newline = buffer.indexOf(NEWLINE, start); newline !== -1 && newline < length; newline = buffer.indexOf(NEWLINE, start)) {
      visit({ text: buffer.toString("utf8", start, newline), offset: base + start });
      start = newline + 1;
    }
    buffer.copy(buffer, 0, start, length);
    base += start;
    length -= start;
  }
}
