/**
 * `AGENTS.md` files that apply to a working directory: the one in each
 * folder from the repository root (the nearest folder up with a `.git`) down
 * to the working directory, outermost first, so the most specific comes last.
 *
 * They come with the workspace, so they are read as hostile: at most
 * {@link maxAgentsFileBytes} of each (a larger file is cut, never read
 * whole), a regular file only (a FIFO or device is skipped without waiting),
 * and one that is a link leading out of the repository (or of the working
 * directory outside one) is skipped.
 */
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { readFileStart, startText } from "../files/read-capped-file.js";

/** One instructions file. */
export interface AgentsFile {
  /** Absolute path. */
  path: string;
  content: string;
}

/** The largest AGENTS.md kept whole; longer ones are cut with a marker. */
export const maxAgentsFileChars = 20_000;
/** Bytes read of one AGENTS.md at most: {@link maxAgentsFileChars} characters at their longest in UTF-8 (3 bytes per UTF-16 unit). */
export const maxAgentsFileBytes = maxAgentsFileChars * 3;

/** The repository root above (or at) `dir`: the nearest folder with a `.git` entry, or null. */
export async function findRepoRoot(dir: string): Promise<string | null> {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    if (await exists(path.join(current, ".git"))) return current;
    if (path.dirname(current) === current) return null;
  }
}

/** What {@link findAgentsFiles} found: the files read, and the notices of those it left out. */
export interface FoundAgentsFiles {
  files: AgentsFile[];
  /** One line per AGENTS.md that was there but not read (it links out of the repository), naming the file, never the link's target. */
  skipped: string[];
}

/** The AGENTS.md files from the repository root (or `cwd` alone outside a repository) down to `cwd`. */
export async function findAgentsFiles(cwd: string, repoRoot: string | null): Promise<FoundAgentsFiles> {
  const folders: string[] = [];
  const top = repoRoot ?? cwd;
  for (let current = path.resolve(cwd); ; current = path.dirname(current)) {
    folders.unshift(current);
    if (current === top || path.dirname(current) === current) break;
  }
  const root = await realpath(top).catch(() => path.resolve(top));
  const found = await Promise.all(folders.map((folder) => readAgentsFile(root, path.join(folder, "AGENTS.md"))));
  const files = found.filter((file): file is AgentsFile => file !== null && file !== OUTSIDE);
  const skipped = folders
    .filter((_, i) => found[i] === OUTSIDE)
    .map((folder) => `${path.relative(top, path.join(folder, "AGENTS.md"))} links out of the ${repoRoot === null ? "working directory" : "repository"}: it is not read into the system prompt`);
  return { files, skipped };
}

/** What {@link readAgentsFile} gives for a file that leads (through links) out of the root. */
const OUTSIDE = Symbol("outside");

/**
 * `file` cut to {@link maxAgentsFileChars}; null when it is not there or not
 * a regular file, {@link OUTSIDE} when, as opened, it lies (through links)
 * out of `root` (a real path): the read checks what it opened, so a link swapped in
 * meanwhile cannot bring a file from outside.
 */
async function readAgentsFile(root: string, file: string): Promise<AgentsFile | typeof OUTSIDE | null> {
  const read = await readFileStart(file, maxAgentsFileBytes, { within: root });
  if (read.kind === "outside") return OUTSIDE;
  if (read.kind !== "read" && read.kind !== "cut") return null;
  const content = startText(read);
  const cut = read.kind === "cut" || content.length > maxAgentsFileChars;
  const size = read.kind === "cut" ? read.size : read.bytes.length;
  return { path: file, content: cut ? `${content.slice(0, maxAgentsFileChars).trim()}\n[AGENTS.md truncated: the file has ${size} bytes; its first ${maxAgentsFileChars} characters are kept]` : content.trim() };
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(() => true, () => false);
}
