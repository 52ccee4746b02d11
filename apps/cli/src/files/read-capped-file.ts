/**
 * One read of a small file kosong keeps or a workspace brings (settings,
 * session files, AGENTS.md, agent and prompt files), bounded: only a regular
 * file is read, opening never waits on a FIFO, and at most the cap (plus one
 * byte, to tell a file that grew past it after its size was checked). A
 * larger file is refused ({@link readCappedFile}) or its start is kept
 * ({@link readFileStart}).
 */
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";

/** What {@link readCappedFile} found. */
export type CappedFileRead =
  /** Not there (or a path through a non-folder). */
  | { kind: "missing" }
  /** There but not readable (a folder, a FIFO or device, a link when links are refused, no permission, ...): why. */
  | { kind: "unreadable"; message: string }
  /** A regular file larger than the cap: not read (or read past the cap, having grown). */
  | { kind: "too-large"; bytes: number }
  /** Its bytes. */
  | { kind: "read"; bytes: Buffer };

/** What {@link readFileStart} found: as {@link CappedFileRead}, but a larger file gives its start. */
export type FileStartRead =
  | Exclude<CappedFileRead, { kind: "too-large" }>
  /** A regular file larger than the cap: its first `maxBytes` bytes, and its size (at least `maxBytes + 1`). */
  | { kind: "cut"; bytes: Buffer; size: number };

/** Whether links in the file's place are followed. */
export interface CappedReadOptions {
  /** With `false` a link in the file's place is unreadable (O_NOFOLLOW). Default true. */
  followLinks?: boolean;
}

/** Reads `file` when it is a regular file of at most `maxBytes`. */
export async function readCappedFile(file: string, maxBytes: number, options: CappedReadOptions = {}): Promise<CappedFileRead> {
  const read = await readRegular(file, maxBytes, options, false);
  return read.kind === "cut" ? { kind: "too-large", bytes: read.size } : read;
}

/** Reads at most the first `maxBytes` of `file` when it is a regular file (a larger one is `cut`, never read whole). */
export function readFileStart(file: string, maxBytes: number, options: CappedReadOptions = {}): Promise<FileStartRead> {
  return readRegular(file, maxBytes, options, true);
}

/** The read of both: without `keepStart` a file whose size is over the cap is not read at all (`cut`, no bytes). */
async function readRegular(file: string, maxBytes: number, options: CappedReadOptions, keepStart: boolean): Promise<FileStartRead> {
  try {
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | (options.followLinks === false ? constants.O_NOFOLLOW : 0));
    try {
      const info = await handle.stat();
      if (!info.isFile()) return { kind: "unreadable", message: "not a regular file" };
      if (info.size > maxBytes && !keepStart) return { kind: "cut", bytes: Buffer.alloc(0), size: info.size };
      // One byte past the cap tells a file that grew after the stat (or reports no true size).
      const bytes = await readAtMost(handle, maxBytes + 1);
      if (bytes.length <= maxBytes) return { kind: "read", bytes };
      return { kind: "cut", bytes: bytes.subarray(0, maxBytes), size: Math.max(info.size, bytes.length) };
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? { kind: "missing" } : { kind: "unreadable", message: (error as Error).message };
  }
}

/** Up to `limit` bytes from the start of `handle`'s file. */
async function readAtMost(handle: FileHandle, limit: number): Promise<Buffer> {
  const buffer = Buffer.alloc(limit);
  let length = 0;
  while (length < limit) {
    const { bytesRead } = await handle.read(buffer, length, limit - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  return buffer.subarray(0, length);
}
