/**
 * Detecting a context file changed behind its writer's back: the writer
 * knows the device, inode and size of what it last wrote, and a `stat` of
 * the path (or of its open handle) tells whether that is still the file
 * there.
 */
import { statSync } from "node:fs";
import { stat, type FileHandle } from "node:fs/promises";
import { hasCode } from "./durable-fs.js";
import { ContextFileChangedError } from "./errors.js";

/** What the writer last wrote: the file (device and inode) and its size; `exists` false before the file is created. */
export interface WrittenFile {
  exists: boolean;
  dev: number;
  ino: number;
  size: number;
}

/** The facts of a file as `stat` gives them. */
interface FileStat {
  dev: number;
  ino: number;
  size: number;
}

/**
 * The change between what the writer last wrote (`written`) and what is at
 * `file` now (`now`, null if nothing is): a {@link ContextFileChangedError},
 * or null if it is the same file with the same size.
 */
export function compareWritten(file: string, written: WrittenFile, now: FileStat | null): ContextFileChangedError | null {
  if (!written.exists) return now === null ? null : new ContextFileChangedError(file, "created", `it appeared with ${now.size} bytes before this writer created it`);
  if (now === null) return new ContextFileChangedError(file, "removed", "it was renamed away or deleted");
  if (now.dev !== written.dev || now.ino !== written.ino) return new ContextFileChangedError(file, "replaced", `another file, of ${now.size} bytes, is at its path now`);
  if (now.size > written.size) return new ContextFileChangedError(file, "appended", `${now.size - written.size} bytes were added after the ${written.size} this writer wrote`);
  if (now.size < written.size) return new ContextFileChangedError(file, "truncated", `it holds ${now.size} of the ${written.size} bytes this writer wrote`);
  return null;
}

/** {@link compareWritten} against what is at `file` now (one `stat`). */
export async function checkWritten(file: string, written: WrittenFile): Promise<ContextFileChangedError | null> {
  return compareWritten(file, written, await statOrNull(file));
}

/** What is at `file` now, or null if nothing is. */
export async function statOrNull(file: string): Promise<FileStat | null> {
  try {
    return await stat(file);
  } catch (error) {
    if (!hasCode(error, "ENOENT")) throw error;
    return null;
  }
}

/**
 * {@link statOrNull} without a trip through the thread pool: one `statx` of
 * a local file takes microseconds, far less than handing it to a worker
 * thread and back, which is what an append would otherwise wait for.
 */
export function statOrNullNow(file: string): FileStat | null {
  return statSync(file, { throwIfNoEntry: false }) ?? null;
}

/**
 * Takes back `written`, appended through `handle` (opened for appending),
 * after a foreign change was found: cuts it off if it is still the end of
 * that file, so the bytes a foreign program wrote before it stay and the
 * file it wrote to (perhaps renamed away by now) is as it was. Leaves the
 * file alone if something was written after it. Best effort: resolves
 * false if the bytes could not be taken back.
 */
export async function takeBack(handle: FileHandle, written: Buffer): Promise<boolean> {
  try {
    const { size } = await handle.stat();
    if (size < written.length) return false;
    const tail = Buffer.alloc(written.length);
    const { bytesRead } = await handle.read(tail, 0, tail.length, size - tail.length);
    if (bytesRead !== tail.length || !tail.equals(written)) return false;
    await handle.truncate(size - tail.length);
    return true;
  } catch {
    return false;
  }
}
