/**
 * Reading the Markdown files users bring to shape the agent (skills, custom
 * commands) from folders that may be a cloned repository's: each file is
 * read only when it lies (after links, as opened) inside the folder's root, at most
 * {@link maxPromptFileBytes} of it, and a folder yields at most
 * {@link maxPromptFiles} files.
 */
import { lstat, readdir } from "node:fs/promises";
import { readFileStart, startText } from "../files/read-capped-file.js";

/** Bytes read of one prompt file at most (the rest is cut, with a note). */
export const maxPromptFileBytes = 64 * 1024;

/** Files taken from one folder at most. */
export const maxPromptFiles = 200;

/** Where prompt files come from: a folder, and the root it must stay inside (the workspace, or the user's folder). */
export interface PromptFolder {
  /** The folder, e.g. `<workspace>/.claude/skills`. */
  dir: string;
  /** Files (after links, as opened) must lie inside this folder; a real path (the workspace, or the file system's root for the user's own). */
  root: string;
  /** `project` (the workspace) or `user` (the user's own folder). */
  scope: "project" | "user";
}

/** A prompt file as read: its text, whether it was cut, and its real path as opened. */
export interface PromptFileText {
  text: string;
  cut: boolean;
  real: string;
}

/**
 * Reads at most `max` bytes of `file` as UTF-8 (a character the cut splits
 * is left out; `cut` says the file was longer) when, as opened, it lies
 * inside the real folder `root`: the read checks what it opened, so a link
 * swapped in meanwhile cannot bring a file from outside. Null when it is not
 * there or lies outside `root`.
 * @throws Error when it is there but not readable, or not a regular file (a FIFO is not waited on).
 */
export async function readConfined(root: string, file: string, max = maxPromptFileBytes): Promise<PromptFileText | null> {
  const read = await readFileStart(file, max, { within: root });
  if (read.kind === "missing" || read.kind === "outside") return null;
  if (read.kind === "unreadable") throw new Error(`${file}: ${read.message}`);
  return { text: startText(read), cut: read.kind === "cut", real: read.real ?? file };
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
