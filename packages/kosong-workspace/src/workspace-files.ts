/**
 * The port through which the file journal reads and restores the
 * workspace's files, and its default Node implementation, confined to the
 * workspace as the CLI's file tools are (see `confined-fs.ts`): links are
 * never followed out of it, files are opened with `O_NOFOLLOW` and checked by
 * descriptor, and every write is an atomic replace.
 */
import { isInside, PathEscapeError } from "./path-escape-error.js";
import { inspectAndReadInside, inspectInside, replaceAtomically, type ConfinedRoot } from "./confined-fs.js";
import path from "node:path";

/** What a path holds: nothing, a regular file (its bytes and permission bits), or a symlink (its target, never followed). */
export type FileState = { kind: "missing" } | { kind: "file"; data: Uint8Array; mode: number } | { kind: "link"; target: string };

/** What {@link WorkspaceFiles.read} found: a {@link FileState}, or why the path cannot be journaled. */
export type ReadFileState = FileState | { kind: "too-large"; size: number } | { kind: "unsupported"; reason: string };

/** The cheap identity of what a path holds: compared to tell whether it changed. */
export interface FileStamp {
  kind: "missing" | "file" | "link" | "other";
  size: number;
  mtimeMs: number;
  /** Permission bits (`mode & 0o7777`). */
  mode: number;
}

/** The stamp of a path that holds nothing. */
export const missingStamp: FileStamp = { kind: "missing", size: 0, mtimeMs: 0, mode: 0 };

/** File access for the journal, relative paths resolved against {@link root} and confined to it. */
export interface WorkspaceFiles {
  /** The workspace folder (absolute, symlinks resolved). */
  readonly root: string;
  /** The stamp of `relative` (links not followed). */
  stamp(relative: string): Promise<FileStamp>;
  /** The state of `relative`; a file over `maxBytes` is not read. */
  read(relative: string, maxBytes: number): Promise<ReadFileState>;
  /** Puts `state` at `relative` atomically (a crash leaves the old or the new entry), creating missing folders. */
  write(relative: string, state: FileState): Promise<void>;
}

/**
 * The key of `requested` (absolute, or relative to `root`) in the journal:
 * the path relative to `root` with `/` separators.
 * @throws PathEscapeError when it is outside `root`.
 */
export function workspaceKey(root: string, requested: string): string {
  const absolute = path.resolve(root, requested);
  if (!isInside(root, absolute) || absolute === root) throw new PathEscapeError(requested);
  return path.relative(root, absolute).split(path.sep).join("/");
}

/** The confined Node implementation of {@link WorkspaceFiles} for the workspace folder `root` (absolute, symlinks resolved). */
export function nodeWorkspaceFiles(root: string): WorkspaceFiles {
  const confined: ConfinedRoot = { root };
  return {
    root,
    async stamp(relative) {
      const { stats } = await inspectInside(confined, relative);
      if (stats === null) return missingStamp;
      const kind = stats.isFile() ? "file" : stats.isSymbolicLink() ? "link" : "other";
      return { kind, size: stats.size, mtimeMs: stats.mtimeMs, mode: stats.mode & 0o7777 };
    },
    async read(relative, maxBytes) {
      try {
        const { stats, linkTarget, content } = await inspectAndReadInside(confined, relative, maxBytes);
        if (stats === null) return { kind: "missing" };
        if (linkTarget !== null) return { kind: "link", target: linkTarget };
        if (!stats.isFile()) return { kind: "unsupported", reason: stats.isDirectory() ? "a folder" : "not a regular file" };
        if (content === null || content.stats.size > maxBytes) return { kind: "too-large", size: content?.stats.size ?? stats.size };
        return { kind: "file", data: content.data, mode: content.stats.mode & 0o7777 };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
        if (error instanceof PathEscapeError) throw error;
        return { kind: "unsupported", reason: (error as Error).message };
      }
    },
    async write(relative, state) {
      await replaceAtomically(confined, relative, state);
    },
  };
}
