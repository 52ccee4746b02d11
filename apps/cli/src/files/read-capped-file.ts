/**
 * One read of a small file kosong keeps or a workspace brings (settings,
 * session files), bounded: only a regular file is read, opening never waits
 * on a FIFO, and at most the cap (plus one byte, to tell a file that grew
 * past it after its size was checked).
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

/**
 * Reads `file` when it is a regular file of at most `maxBytes`. With
 * `followLinks: false` a link in the file's place is unreadable (O_NOFOLLOW).
 */
export async function readCappedFile(file: string, maxBytes: number, options: { followLinks?: boolean } = {}): Promise<CappedFileRead> {
  let bytes: Buffer;
  try {
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | (options.followLinks === false ? constants.O_NOFOLLOW : 0));
    try {
      const info = await handle.stat();
      if (!info.isFile()) return { kind: "unreadable", message: "not a regular file" };
      if (info.size > maxBytes) return { kind: "too-large", bytes: info.size };
      bytes = await readAtMost(handle, maxBytes + 1);
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? { kind: "missing" } : { kind: "unreadable", message: (error as Error).message };
  }
  // A file that grew between the stat and the read (or reports no true size).
  return bytes.length > maxBytes ? { kind: "too-large", bytes: bytes.length } : { kind: "read", bytes };
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
