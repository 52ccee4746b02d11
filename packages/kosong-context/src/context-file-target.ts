/**
 * What opening a context file for writing finds: the file it writes (behind
 * a symbolic link, its target), refused with `StorageOpenError` when it
 * cannot be a context file, and the facts the writer starts from.
 */
import { lstat, open, realpath, rename, stat, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { copyToNewFile, fsyncDirectory, hasCode, tempPathFor, unlinkQuietly } from "./durable-fs.js";
import { StorageOpenError } from "./errors.js";

/** What the writer needs to know about its file. */
export interface FileFacts {
  exists: boolean;
  size: number;
  endsWithNewline: boolean;
  links: number;
  /** Device and inode: which file this is (0 when it does not exist). */
  dev: number;
  ino: number;
}

/**
 * The file that `file` (absolute) names for writing: itself, or the target
 * of a symbolic link (so a rotation is always a file of its own, beside the
 * target, and the link stays a link). Throws `StorageOpenError` when it is a
 * dangling link, a directory, not a regular file (a FIFO would block every
 * read, a device would take appends), or when its folder does not exist (or
 * is not a folder): checked before the lock file is made beside it, so the
 * error names the user's file rather than the lock.
 */
export async function resolveContextFile(file: string): Promise<string> {
  let target = file;
  let missing: unknown;
  const link = await lstat(file).catch((error: unknown) => {
    if (!hasCode(error, "ENOENT", "ENOTDIR")) throw error;
    missing = error;
    return null;
  });
  if (link?.isSymbolicLink()) {
    try {
      target = await realpath(file);
    } catch (error) {
      if (!hasCode(error, "ENOENT")) throw error;
      throw new StorageOpenError(file, "it is a symbolic link to a file that does not exist", { cause: error });
    }
  }
  const info = link === null ? null : await stat(target);
  if (info?.isDirectory()) throw new StorageOpenError(file, "it is a directory");
  if (info !== null && !info.isFile()) throw new StorageOpenError(file, "it is not a regular file (a FIFO, socket or device)");
  if (info === null) await assertFolder(file, missing);
  return target;
}

async function assertFolder(file: string, missing: unknown): Promise<void> {
  const folder = path.dirname(file);
  const parent = await stat(folder).catch(() => null);
  if (parent?.isDirectory()) return;
  const problem = parent === null ? `its folder ${folder} does not exist (opening does not create folders)` : `${folder} is not a folder`;
  throw new StorageOpenError(file, problem, { cause: missing });
}

/**
 * The facts of `file`, opened for reading and writing (not created): a file
 * that exists but cannot be written (read-only, on a read-only file system) is a
 * `StorageOpenError` now rather than a failed first append.
 */
export async function inspectFile(file: string): Promise<FileFacts> {
  let handle: FileHandle;
  try {
    handle = await open(file, "r+");
  } catch (error) {
    if (hasCode(error, "ENOENT")) return { exists: false, size: 0, endsWithNewline: true, links: 0, dev: 0, ino: 0 };
    if (hasCode(error, "EACCES", "EPERM", "EROFS")) throw new StorageOpenError(file, `it cannot be written (${(error as Error).message})`, { cause: error });
    throw error;
  }
  try {
    const info = await handle.stat();
    let endsWithNewline = true;
    if (info.size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, info.size - 1);
      endsWithNewline = last[0] === 10;
    }
    return { exists: true, size: info.size, endsWithNewline, links: info.nlink, dev: info.dev, ino: info.ino };
  } finally {
    await handle.close();
  }
}

/** Replaces `file` by a synced copy of itself: a fresh inode with the same bytes. */
export async function replaceWithCopy(file: string): Promise<void> {
  const temp = tempPathFor(file);
  try {
    await copyToNewFile(file, temp);
    await rename(temp, file);
    await fsyncDirectory(path.dirname(file));
  } finally {
    await unlinkQuietly(temp);
  }
}
