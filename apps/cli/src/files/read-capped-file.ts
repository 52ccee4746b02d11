/**
 * One read of a small file kosong keeps or a workspace brings (settings,
 * session files, AGENTS.md, agent and prompt files), bounded: only a regular
 * file is read, opening never waits on a FIFO, and at most the cap (plus one
 * byte, to tell a file that grew past it after its size was checked). A
 * larger file is refused ({@link readCappedFile}) or its start is kept
 * ({@link readFileStart}).
 *
 * A workspace's file is read confined (`within`): the file is opened first,
 * and what was opened is checked, not the name: its real path as the kernel
 * has it for the open descriptor (`/proc/self/fd` on Linux; elsewhere the
 * name's real path) must lie inside the folder, and that path must still
 * name the opened file (same device and inode). So a link swapped into the
 * path between a check and the read cannot bring a file from outside.
 */
import { constants, type Stats } from "node:fs";
import { type FileHandle, open, readlink, realpath, stat } from "node:fs/promises";
import { isInside } from "@kosong/workspace";

/** What {@link readCappedFile} found. */
export type CappedFileRead =
  /** Not there (or a path through a non-folder). */
  | { kind: "missing" }
  /** There but not readable (a folder, a FIFO or device, a link when links are refused, no permission, ...): why. */
  | { kind: "unreadable"; message: string }
  /** With `within`: what was opened is not inside that folder (reached through a link out of it, or swapped while opened); not read. */
  | { kind: "outside" }
  /** A regular file larger than the cap: not read (or read past the cap, having grown). */
  | { kind: "too-large"; bytes: number }
  /** Its bytes (and with `within`, its real path as opened). */
  | { kind: "read"; bytes: Buffer; real?: string };

/** What {@link readFileStart} found: as {@link CappedFileRead}, but a larger file gives its start. */
export type FileStartRead =
  | Exclude<CappedFileRead, { kind: "too-large" }>
  /** A regular file larger than the cap: its first `maxBytes` bytes, and its size (at least `maxBytes + 1`); with `within`, its real path as opened. */
  | { kind: "cut"; bytes: Buffer; size: number; real?: string };

/** Whether links in the file's place are followed, and the folder the file must be in. */
export interface CappedReadOptions {
  /** With `false` a link in the file's place is unreadable (O_NOFOLLOW). Default true. */
  followLinks?: boolean;
  /**
   * A folder, by its real path, that the file, as opened, must lie inside;
   * else the read is `outside`. It is not resolved again: a folder inside a
   * hostile tree stays the one that was checked.
   */
  within?: string;
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

/**
 * The UTF-8 text of a {@link readFileStart} read that found the file: where
 * the cut split a character, its bytes so far are dropped rather than
 * decoded as U+FFFD.
 */
export function startText(read: Extract<FileStartRead, { bytes: Buffer }>): string {
  return new TextDecoder().decode(read.bytes, { stream: read.kind === "cut" });
}

/** The read of both: without `keepStart` a file whose size is over the cap is not read at all (`cut`, no bytes). */
async function readRegular(file: string, maxBytes: number, options: CappedReadOptions, keepStart: boolean): Promise<FileStartRead> {
  try {
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | (options.followLinks === false ? constants.O_NOFOLLOW : 0));
    try {
      const info = await handle.stat();
      const real = options.within === undefined ? undefined : await openedInside(handle.fd, info, file, options.within);
      if (real === null) return { kind: "outside" };
      const where = real === undefined ? {} : { real };
      if (!info.isFile()) return { kind: "unreadable", message: "not a regular file" };
      if (info.size > maxBytes && !keepStart) return { kind: "cut", bytes: Buffer.alloc(0), size: info.size, ...where };
      // One byte past the cap tells a file that grew after the stat (or reports no true size).
      const bytes = await readAtMost(handle, maxBytes + 1);
      if (bytes.length <= maxBytes) return { kind: "read", bytes, ...where };
      return { kind: "cut", bytes: bytes.subarray(0, maxBytes), size: Math.max(info.size, bytes.length), ...where };
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? { kind: "missing" } : { kind: "unreadable", message: (error as Error).message };
  }
}

/**
 * The real path of the file open as descriptor `fd` (`opened` its fstat),
 * opened by the name `file`, when it lies inside the real folder `root`:
 * the kernel's path for the descriptor (`/proc/self/fd`), or where `/proc`
 * is not mounted the name's real path. Null when that path is outside
 * `root` or no longer names the opened file (same device and inode), as
 * when a link was swapped in between the open and the check.
 */
async function openedInside(fd: number, opened: Stats, file: string, root: string): Promise<string | null> {
  const real = await readlink(`/proc/self/fd/${fd}`).catch(() => realpath(file));
  if (!isInside(root, real)) return null;
  const named = await stat(real).catch(() => null);
  return named !== null && named.dev === opened.dev && named.ino === opened.ino ? real : null;
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
