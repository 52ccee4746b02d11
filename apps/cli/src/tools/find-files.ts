/** File discovery for `Glob` and `Grep`: tinyglobby inside the workspace, never following symlinks out of it. */
import path from "node:path";
import { glob } from "tinyglobby";
import { resolveInside } from "./confined-fs.js";
import { PathEscapeError, type Workspace } from "./workspace.js";

/** Folders never searched. */
export const ignoredFolders = ["**/node_modules/**", "**/.git/**"];

/** True when `pattern` is absolute or climbs out with `..`. */
export function unsafePattern(pattern: string): boolean {
  return path.isAbsolute(pattern) || pattern.split(/[\\/]/).includes("..");
}

/**
 * Files under `dir` matching `pattern`, as sorted paths relative to the
 * workspace root. Symlinks whose target is outside the workspace are left out.
 */
export async function findFiles(workspace: Workspace, dir: string, pattern: string): Promise<string[]> {
  const found = await glob(pattern, { cwd: dir, ignore: ignoredFolders, onlyFiles: true, dot: true, followSymbolicLinks: false, absolute: true });
  const inside = await Promise.all(found.map((file) => resolveInside(workspace, file).then(() => file, skipEscapes)));
  return inside.filter((file): file is string => file !== null).map((file) => path.relative(workspace.root, file)).sort();
}

function skipEscapes(error: unknown): null {
  if (error instanceof PathEscapeError) return null;
  throw error;
}
