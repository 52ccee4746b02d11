/**
 * The JSON settings files a start reads for more than one purpose (Claude
 * Code's `.claude/settings.json` and `settings.local.json` give hooks and
 * permission rules): each read from disk once and parsed at most once per
 * start, and the same result handed to every reader. What each reader makes
 * of a missing, unreadable, oversized or damaged file stays its own.
 */
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";

/** A settings file larger than this is not read (a workspace's file may be hostile). */
export const maxSettingsBytes = 1024 * 1024;

/** {@link maxSettingsBytes} as the readers' notices name it ("1 MiB"). */
export const maxSettingsSize = `${maxSettingsBytes / (1024 * 1024)} MiB`;

/** The parse of a file's text: its value, or the parser's message. */
export type SettingsJson = { ok: true; value: unknown } | { ok: false; message: string };

/** One read of a settings file. */
export type SettingsFileRead =
  /** Not there (or a path through a non-folder). */
  | { kind: "missing" }
  /** There but not readable (a folder, a FIFO or device, no permission, ...): why. */
  | { kind: "unreadable"; message: string }
  /** A regular file larger than {@link maxSettingsBytes}: not read. */
  | { kind: "too-large"; bytes: number }
  /** Read: its size in bytes, and its JSON, parsed on first use. */
  | { kind: "read"; bytes: number; json: () => SettingsJson };

/** How a reader gets a settings file: {@link readSettingsFile} (from disk each time) or a start's {@link SettingsFileReads}. */
export type ReadSettingsFile = (file: string) => Promise<SettingsFileRead>;

/** Reads settings files at most once each (by absolute path), for the readers of one start. */
export class SettingsFileReads {
  readonly #reads = new Map<string, Promise<SettingsFileRead>>();

  /** The read of `file` (absolute), from disk the first time it is asked for (bound: pass it as a {@link ReadSettingsFile}). */
  readonly read: ReadSettingsFile = (file) => {
    let read = this.#reads.get(file);
    if (read === undefined) {
      read = readSettingsFile(file);
      this.#reads.set(file, read);
    }
    return read;
  };
}

/**
 * Reads `file` from disk now (no sharing): what a reader outside a start, or
 * a re-read after an edit, uses. Only a regular file of at most
 * {@link maxSettingsBytes} is read; opening does not wait on a FIFO.
 */
export async function readSettingsFile(file: string): Promise<SettingsFileRead> {
  let bytes: Buffer;
  try {
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const info = await handle.stat();
      if (!info.isFile()) return { kind: "unreadable", message: "not a regular file" };
      if (info.size > maxSettingsBytes) return { kind: "too-large", bytes: info.size };
      bytes = await readAtMost(handle, maxSettingsBytes + 1);
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? { kind: "missing" } : { kind: "unreadable", message: (error as Error).message };
  }
  // A file that grew between the stat and the read (or reports no true size).
  if (bytes.length > maxSettingsBytes) return { kind: "too-large", bytes: bytes.length };
  let json: SettingsJson | undefined;
  return { kind: "read", bytes: bytes.length, json: () => (json ??= parse(bytes.toString("utf8"))) };
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

function parse(text: string): SettingsJson {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}
