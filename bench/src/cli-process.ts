/**
 * The built CLI, for the benchmarks that run it as a user does: where it is,
 * building it when missing, and whether a pseudo-terminal can be had.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

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
