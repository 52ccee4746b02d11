/**
 * `AGENTS.md` files that apply to a working directory: the one in each
 * folder from the repository root (the nearest folder up with a `.git`) down
 * to the working directory, outermost first, so the most specific comes last.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";

/** One instructions file. */
export interface AgentsFile {
  /** Absolute path. */
  path: string;
  content: string;
}

/** The largest AGENTS.md read whole; longer ones are cut with a marker. */
export const maxAgentsFileChars = 20_000;

/** The repository root above (or at) `dir`: the nearest folder with a `.git` entry, or null. */
export async function findRepoRoot(dir: string): Promise<string | null> {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    if (await exists(path.join(current, ".git"))) return current;
    if (path.dirname(current) === current) return null;
  }
}

/** The AGENTS.md files from the repository root (or `cwd` alone outside a repository) down to `cwd`. */
export async function findAgentsFiles(cwd: string, repoRoot: string | null): Promise<AgentsFile[]> {
  const folders: string[] = [];
  const top = repoRoot ?? cwd;
  for (let current = path.resolve(cwd); ; current = path.dirname(current)) {
    folders.unshift(current);
    if (current === top || path.dirname(current) === current) break;
  }
  const files = await Promise.all(folders.map((folder) => readAgentsFile(path.join(folder, "AGENTS.md"))));
  return files.filter((file): file is AgentsFile => file !== null);
}

async function readAgentsFile(file: string): Promise<AgentsFile | null> {
  try {
    const content = await readFile(file, "utf8");
    const capped = content.length > maxAgentsFileChars ? `${content.slice(0, maxAgentsFileChars)}\n[AGENTS.md truncated: ${content.length - maxAgentsFileChars} more characters]` : content;
    return { path: file, content: capped.trim() };
  } catch {
    return null;
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(() => true, () => false);
}
