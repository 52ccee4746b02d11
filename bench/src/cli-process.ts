/**
 * The built CLI, for the benchmarks that run it as a user does: where it is,
 * building it when missing, and whether a pseudo-terminal can be had.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { childrenOf } from "./process-tree.ts";

/** The repository's root folder. */
export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The built CLI's entry (`apps/cli/dist/kosong.js`). */
export const kosongBin = path.join(repoRoot, "apps/cli/dist/kosong.js");

/** Builds the CLI (and what it depends on) when its entry is missing. */
export function ensureCliBuilt(): void {
  if (!existsSync(kosongBin)) execFileSync("pnpm", ["exec", "turbo", "run", "build", "--filter=@kosong/cli..."], { cwd: repoRoot, stdio: "ignore" });
}

/** Whether util-linux's `script` (a pseudo-terminal for a command) is here. */
export function hasScript(): boolean {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** A small git repository with an AGENTS.md, as a user's project. */
export function makeProject(work: string): string {
  const project = path.join(work, "project");
  mkdirSync(path.join(project, "src"), { recursive: true });
  writeFileSync(path.join(project, "AGENTS.md"), "# Project\n\nRun the tests with `npm test`.\n");
  writeFileSync(path.join(project, "src", "index.ts"), "export const answer = 42;\n");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: project, stdio: "ignore", env: { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@example.com", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@example.com" } });
  git("init", "-q");
  git("add", ".");
  git("commit", "-qm", "start");
  writeFileSync(path.join(project, "src", "index.ts"), "export const answer = 43;\n");
  return project;
}

/** The process `script` runs the command as (its child: the command is exec'd), from `/proc` (no pgrep needed), or null. */
export function commandPid(scriptPid: number): number | null {
  return childrenOf(scriptPid)[0] ?? null;
}
