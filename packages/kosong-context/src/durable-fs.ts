/**
 * File-system steps for crash-safe replacement of a file: temp files beside
 * the target, fsync of files and directories, durable copies.
 */
import { open, readdir, rename, stat, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";

/**
 * The permission bits of a new context file, lock file or temp file:
 * readable and writable by its owner only. A conversation holds whatever
 * the user and the tools put in it.
 */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * The permission bits of `file` (what a file replacing it gets), or
 * {@link PRIVATE_FILE_MODE} when it does not exist.
 */
export async function modeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).mode & 0o7777;
  } catch (error) {
    if (hasCode(error, "ENOENT")) return PRIVATE_FILE_MODE;
    throw error;
  }
}

/**
 * Creates `file` exclusively (it must not exist) with exactly the
 * permission bits `mode`: created owner-only (the process umask can only
 * narrow that), then set to `mode`, before any byte is written. So a file
 * is never readable by others, not even for a moment or after a crash,
 * unless `mode` says so.
 */
export async function createFileWithMode(file: string, mode: number, flags = "wx"): Promise<FileHandle> {
  const handle = await open(file, flags, PRIVATE_FILE_MODE);
  try {
    await handle.chmod(mode);
  } catch (error) {
    await handle.close();
    await unlinkQuietly(file);
    throw error;
  }
  return handle;
}

/** True for a Node file-system error with this `code`. */
export function hasCode(error: unknown, ...codes: string[]): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" && codes.includes(code);
}

/**
 * Makes the entries of `dir` durable (creations, renames, links). Platforms
 * that cannot open or sync a directory (Windows) are skipped silently.
 */
export async function fsyncDirectory(dir: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(dir, "r");
  } catch (error) {
    if (hasCode(error, "EISDIR", "EPERM", "EACCES")) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!hasCode(error, "EINVAL", "EPERM", "EBADF", "ENOTSUP")) throw error;
  } finally {
    await handle.close();
  }
}

let tempCounter = 0;

/** A fresh temp-file path beside `file`: `.<name>.tmp-<pid>-<n>` in the same directory. */
export function tempPathFor(file: string): string {
  tempCounter += 1;
  return path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}-${tempCounter}`);
}

/** `text` as a literal inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Deletes temp files of `file` left behind by an interrupted operation. Call
 * only while holding the file's lock: then no temp file is in use.
 */
export async function removeStaleTempFiles(file: string): Promise<void> {
  const dir = path.dirname(file);
  const pattern = new RegExp(`^\\.${escapeRegExp(path.basename(file))}\\.tmp-\\d+-\\d+$`);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (hasCode(error, "ENOENT")) return;
    throw error;
  }
  for (const name of names) {
    if (!pattern.test(name)) continue;
    try {
      await unlink(path.join(dir, name));
    } catch (error) {
      if (!hasCode(error, "ENOENT")) throw error;
    }
  }
}

/** Bytes read and written per step of a range copy. */
const COPY_CHUNK = 1024 * 1024;

/**
 * Copies bytes `[start, end)` of `source` to the current position of
 * `target`, chunk by chunk. `check`, if given, sees each chunk as read (with
 * its offset in `source`) before it is written, and may throw to stop the
 * copy.
 */
async function copyRange(
  source: FileHandle,
  target: FileHandle,
  start: number,
  end: number,
  check?: (chunk: Buffer, position: number) => void,
): Promise<void> {
  const buffer = Buffer.allocUnsafe(Math.min(COPY_CHUNK, Math.max(0, end - start)));
  for (let position = start; position < end; ) {
    const { bytesRead } = await source.read(buffer, 0, Math.min(buffer.length, end - position), position);
    if (bytesRead === 0) throw new Error(`unexpected end of file at byte ${position} (expected ${end})`);
    const chunk = buffer.subarray(0, bytesRead);
    check?.(chunk, position);
    await writeAll(target, [chunk]);
    position += bytesRead;
  }
}

/** What {@link writeNewFileFrom} writes besides the copied range, and its check. */
export interface NewFileOptions {
  /** Bytes written before the copied range. */
  head?: Buffer;
  /** Bytes written after the copied range. */
  tail?: Buffer;
  /** Sees each piece of the source as read (with its offset in the source) before it is written; may throw to stop. */
  check?: (chunk: Buffer, position: number) => void;
  /** Permission bits of the new file (default {@link PRIVATE_FILE_MODE}): those of the file it replaces. */
  mode?: number;
}

/**
 * Creates `file` (it must not exist, with the permission bits `mode`)
 * holding `head`, bytes `[start, end)` of `source` (none if `source` is
 * null) and `tail`, then flushes it to
 * disk with fdatasync and closes it. fdatasync suffices for a new file: it
 * flushes the data and the metadata needed to read it back (size, allocated
 * blocks); the name is made durable by the caller's sync of the directory.
 */
export async function writeNewFileFrom(
  file: string,
  source: FileHandle | null,
  start: number,
  end: number,
  options: NewFileOptions = {},
): Promise<void> {
  const { head, tail, check, mode = PRIVATE_FILE_MODE } = options;
  const handle = await createFileWithMode(file, mode);
  try {
    if (head !== undefined && head.length > 0) await writeAll(handle, [head]);
    if (source !== null) await copyRange(source, handle, start, end, check);
    if (tail !== undefined && tail.length > 0) await writeAll(handle, [tail]);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * Copies the file `source` to `target` (which must not exist, created with
 * the permission bits `mode`, default those of `source`) and flushes the
 * copy to disk with fdatasync.
 */
export async function copyToNewFile(source: string, target: string, mode?: number): Promise<void> {
  const from = await open(source, "r");
  try {
    const info = await from.stat();
    await writeNewFileFrom(target, from, 0, info.size, { mode: mode ?? info.mode & 0o7777 });
  } finally {
    await from.close();
  }
}

/**
 * Replaces `file` with `data` so that a crash at any moment, a killed
 * process or a power loss or kernel crash alike, leaves the old file or the
 * new one, whole: the bytes go to a temp file beside it (created with the
 * permission bits `mode`, default owner-only) that is flushed with
 * fdatasync, then renamed over `file`, then the folder is synced so the
 * rename itself is on disk. A reader at any moment sees one whole file;
 * of two writers, the last rename wins. On failure the temp file is removed
 * and `file` is left as it was.
 */
export async function replaceFileDurably(file: string, data: string | Uint8Array, mode = PRIVATE_FILE_MODE): Promise<void> {
  const temp = tempPathFor(file);
  try {
    await writeNewFileFrom(temp, null, 0, 0, { tail: Buffer.from(data), mode });
    await rename(temp, file);
  } catch (error) {
    await unlinkQuietly(temp);
    throw error;
  }
  await fsyncDirectory(path.dirname(file));
}

/** Writes every byte of `buffers` at the handle's position, retrying short writes. */
export async function writeAll(handle: FileHandle, buffers: Buffer[]): Promise<void> {
  let pending = buffers;
  let remaining = 0;
  for (const b of pending) remaining += b.length;
  while (remaining > 0) {
    const { bytesWritten } = await handle.writev(pending);
    if (bytesWritten <= 0) throw new Error("write made no progress");
    remaining -= bytesWritten;
    if (remaining > 0) pending = dropBytes(pending, bytesWritten);
  }
}

function dropBytes(buffers: Buffer[], count: number): Buffer[] {
  let rest = count;
  let i = 0;
  while (i < buffers.length && rest >= buffers[i]!.length) {
    rest -= buffers[i]!.length;
    i += 1;
  }
  const out = buffers.slice(i);
  if (rest > 0 && out.length > 0) out[0] = out[0]!.subarray(rest);
  return out;
}

/** Deletes `file`, ignoring a missing file. */
export async function unlinkQuietly(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (error) {
    if (!hasCode(error, "ENOENT")) throw error;
  }
}
