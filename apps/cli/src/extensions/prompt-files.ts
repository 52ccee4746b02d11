/**
 * Reading the Markdown files users bring to shape the agent (skills, custom
 * commands) from folders that may be a cloned repository's: each file is
 * read only when it lies (after links) inside the folder's root, at most
 * {@link maxPromptFileBytes} of it, and a folder yields at most
 * {@link maxPromptFiles} files.
 */
import { lstat, readdir, realpath } from "node:fs/promises";
import path from "node:path";
import { readFileStart } from "../files/read-capped-file.js";

/** Bytes read of one prompt file at most (the rest is cut, with a note). */
export const maxPromptFileBytes = 64 * 1024;

/** Files taken from one folder at most. */
export const maxPromptFiles = 200;

/** Where prompt files come from: a folder, and the root it must stay inside (the workspace, or the user's folder). */
export interface PromptFolder {
  /** The folder, e.g. `<workspace>/.claude/skills`. */
  dir: string;
  /** Files (after links) must resolve inside this folder. */
  root: string;
  /** `project` (the workspace) or `user` (the user's own folder). */
  scope: "project" | "user";
}

/** `target` lies inside `root` (both real paths), or is it. */
export function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** The real path of `file` when it exists and lies inside the real `root`; else null. */
export async function confinedRealpath(root: string, file: string): Promise<string | null> {
  try {
    const [realRoot, real] = await Promise.all([realpath(root), realpath(file)]);
    return isInside(realRoot, real) ? real : null;
  } catch {
    return null;
  }
}

/**
 * Reads at most `max` bytes of the file as UTF-8; `cut` says the file was longer.
 * @throws Error when it is not there or not a regular file (a FIFO is not waited on).
 */
export async function readCapped(file: string, max = maxPromptFileBytes): Promise<{ text: string; cut: boolean }> {
  const read = await readFileStart(file, max);
  if (read.kind === "missing") throw new Error(`${file}: not there`);
  if (read.kind === "unreadable") throw new Error(`${file}: ${read.message}`);
  return { text: read.bytes.toString("utf8"), cut: read.kind === "cut" };
}

/** The entries of `dir` (sorted by name), or none when it is missing or not a folder. */
export async function folderEntries(dir: string): Promise<string[]> {
  try {
    if (!(await lstat(dir).catch(() => null))) return [];
    return (await readdir(dir)).sort().slice(0, maxPromptFiles);
  } catch {
    return [];
  }
}
