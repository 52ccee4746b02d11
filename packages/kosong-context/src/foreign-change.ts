/**
 * Detecting a context file changed behind its writer's back: the writer
 * knows the device, inode and size of what it last wrote, and a `stat` of
 * the path (or of its open handle) tells whether that is still the file
 * there.
 */
import { stat } from "node:fs/promises";
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
  let now: FileStat | null;
  try {
    now = await stat(file);
  } catch (error) {
    if (!hasCode(error, "ENOENT")) throw error;
    now = null;
  }
  return compareWritten(file, written, now);
}
