/**
 * The parts of the workspace's repository a sandboxed command must not
 * write: `.git/hooks` and `.git/config`, whose contents git runs or obeys
 * outside the sandbox later (a hook, `core.fsmonitor`, an alias). Bound
 * read-only, they are mount points too, so they cannot be renamed or
 * replaced either.
 */
import { lstatSync, mkdirSync, realpathSync } from "node:fs";
import path from "node:path";

/**
 * The paths to make read-only for `workspace` (a real path): `.git/hooks`
 * and `.git/config`; a missing `.git/hooks` is created first (as `git init`
 * makes it) so that no command can plant one. When either is a symlink or
 * `.git/config` is missing, the whole `.git` folder instead, and the
 * existing targets of those symlinks; a `.git` file (a worktree's or
 * submodule's pointer) itself. None without a `.git`.
 */
export function protectedGitPaths(workspace: string): string[] {
  const git = path.join(workspace, ".git");
  const gitKind = entryKind(git);
  if (gitKind === null) return [];
  if (gitKind !== "directory") return [git];
  const hooks = path.join(git, "hooks");
  const config = path.join(git, "config");
  if (entryKind(hooks) === null) {
    try {
      mkdirSync(hooks);
    } catch {
      // Left to the check below.
    }
  }
  if (entryKind(hooks) === "directory" && entryKind(config) === "file") return [hooks, config];
  const targets = [hooks, config].filter((p) => entryKind(p) === "other").flatMap(existingTarget);
  return [git, ...targets];
}

function existingTarget(link: string): string[] {
  try {
    return [realpathSync(link)];
  } catch {
    return [];
  }
}

function entryKind(p: string): "directory" | "file" | "other" | null {
  try {
    const stat = lstatSync(p);
    return stat.isDirectory() ? "directory" : stat.isFile() ? "file" : "other";
  } catch {
    return null;
  }
}
