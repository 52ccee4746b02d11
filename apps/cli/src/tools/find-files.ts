/**
 * File discovery for `Glob` and `Grep`: tinyglobby inside the workspace,
 * never following symlinks out of it. tinyglobby (with picomatch, whose
 * loading builds its tables) loads with the first search, not with the
 * session: a turn that never searches does not wait for it.
 */
import path from "node:path";
import { FolderCursor, resolveExisting } from "./confined-fs.js";
import { PathEscapeError, type Workspace } from "./workspace.js";

/** Folders never searched. */
export const ignoredFolders = ["**/node_modules/**", "**/.git/**"];

/** True when `pattern` is absolute or climbs out with `..`. */
export function unsafePattern(pattern: string): boolean {
  return path.isAbsolute(pattern) || pattern.split(/[\\/]/).includes("..");
}

/**
 * Files under `dir` matching `pattern`, as sorted paths relative to the
 * workspace root. Symlinks whose target is outside the workspace are left out,
 * and so is a name that is not (or no longer) inside when checked. The checks
 * walk through `cursor` (one of the caller's, or one of its own).
 */
export async function findFiles(workspace: Workspace, dir: string, pattern: string, cursor?: FolderCursor): Promise<string[]> {
  const { glob } = await import("tinyglobby");
  const found = await glob(pattern, { cwd: dir, ignore: ignoredFolders, onlyFiles: true, dot: true, followSymbolicLinks: false, absolute: true });
  const folders = cursor ?? new FolderCursor();
  const inside: string[] = [];
  try {
    for (const file of found.sort()) {
      if (await resolveExisting(workspace, file, folders).then(() => true, skipEscapes)) inside.push(path.relative(workspace.root, file));
    }
  } finally {
    if (!cursor) await folders.close();
  }
  return inside.sort();
}

function skipEscapes(error: unknown): false {
  const code = (error as NodeJS.ErrnoException).code;
  if (error instanceof PathEscapeError || code === "ENOENT" || code === "ENOTDIR") return false;
  throw error;
}
