/**
 * A short, bounded summary of the working directory's git state for the
 * system prompt: the branch and at most a few lines of `git status`.
 */
import { execFile } from "node:child_process";

/** Status lines shown at most. */
export const maxStatusLines = 20;

/** The branch and the bounded status, or null outside a repository (or without git). */
export interface GitSummary {
  branch: string;
  /** `git status --short` lines, at most {@link maxStatusLines}, then a count of the rest. */
  status: string[];
}

/** The git summary of `cwd`, or null when git is missing or `cwd` is not in a repository. */
export async function gitSummary(cwd: string): Promise<GitSummary | null> {
  const [branch, status] = await Promise.all([git(cwd, ["branch", "--show-current"]), git(cwd, ["status", "--short", "--untracked-files=normal"])]);
  if (branch === null || status === null) return null;
  const lines = status.split("\n").filter((line) => line.trim().length > 0);
  const shown = lines.slice(0, maxStatusLines);
  if (lines.length > shown.length) shown.push(`... and ${lines.length - shown.length} more changed files`);
  return { branch: branch.trim() || "(detached HEAD)", status: shown };
}

function git(cwd: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile("git", args, { cwd, timeout: 3_000, maxBuffer: 1024 * 1024 }, (error, stdout) => resolve(error ? null : stdout));
  });
}
