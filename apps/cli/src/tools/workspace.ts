/**
 * The working directory the agent's file tools are confined to. Every path a
 * tool gets is resolved against it and refused when it leads outside (see
 * `confined-fs.ts`, through which every file tool opens its files).
 */
import { realpath } from "node:fs/promises";
import path from "node:path";
import type { FileRegistry } from "@kosong/soul";

export { isInside, PathEscapeError } from "@kosong/soul";

/** Where the tools work and whom they tell about the files they touch. */
export interface Workspace {
  /** The working directory (absolute, symlinks resolved). */
  root: string;
  /** The session's file registry (reads and writes are reported to it). */
  files: FileRegistry;
}

/** A workspace rooted at the real path of `dir`. */
export async function openWorkspace(dir: string, files: FileRegistry): Promise<Workspace> {
  return { root: await realpath(dir), files };
}

/** `target` relative to the workspace root, for display (`.` for the root). */
export function relativeToRoot(workspace: Workspace, target: string): string {
  return path.relative(workspace.root, target) || ".";
}
