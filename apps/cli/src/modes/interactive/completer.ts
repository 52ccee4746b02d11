/**
 * Tab completion of the prompt: a slash command's name at the start of the
 * line; a path in the working directory after `@` (a mention) or in a word
 * with a `/` in it. Folders are listed through the confined file tools'
 * walk, so completion never shows what lies outside the working directory.
 */
import path from "node:path";
import { listDirInside } from "../../tools/confined-fs.js";
import type { Workspace } from "../../tools/workspace.js";

/** What Tab can put in place of the word before the cursor. */
export interface Completion {
  /** Where the word being completed starts (an index into the text before the cursor). */
  from: number;
  /** The words that could replace it, sorted. */
  candidates: string[];
}

/** Completes the word ending at the cursor of `before` (the text before the cursor); null when nothing fits. */
export async function complete(before: string, commands: readonly string[], workspace: Workspace): Promise<Completion | null> {
  const command = /^\/(\S*)$/.exec(before);
  if (command) {
    const candidates = commands.filter((name) => name.startsWith(command[1]!)).map((name) => `/${name}`);
    return candidates.length ? { from: 0, candidates } : null;
  }
  const word = /(?:^|\s)(@?)(\S*)$/.exec(before)!;
  const mention = word[1] === "@";
  const typed = word[2]!;
  if (!mention && !typed.includes("/")) return null;
  const from = before.length - typed.length - word[1]!.length;
  const folder = typed.includes("/") ? typed.slice(0, typed.lastIndexOf("/") + 1) : "";
  const start = typed.slice(folder.length);
  let entries;
  try {
    entries = (await listDirInside(workspace, folder || ".")).entries;
  } catch {
    return null;
  }
  const candidates = entries
    .filter((entry) => entry.name.startsWith(start) && (start.startsWith(".") || !entry.name.startsWith(".")))
    .map((entry) => `${word[1]}${path.posix.join(folder, entry.name)}${entry.stats.isDirectory() ? "/" : ""}`)
    .sort();
  return candidates.length ? { from, candidates } : null;
}

/** The longest start all `words` share. */
export function commonStart(words: readonly string[]): string {
  let start = words[0] ?? "";
  for (const word of words) while (!word.startsWith(start)) start = start.slice(0, -1);
  return start;
}
