/**
 * The working directory the agent's file tools are confined to. Every path a
 * tool gets is resolved against it and refused when it leads outside (see
 * `confined-fs.ts`, through which every file tool opens its files).
 */
import { realpath } from "node:fs/promises";
import path from "node:path";
import type { FileRegistry } from "@kosong/soul";

/** Thrown for a path outside the workspace; tools turn it into an error result. */
export class PathEscapeError extends Error {
  constructor(readonly requested: string) {
    super(`Path \`${requested}\` is outside the working directory; only files inside it can be used.`);
    this.name = "PathEscapeError";
  }
}

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

/** True when the absolute path `target` is `root` or below it (compared as written, no links resolved). */
export function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === "" || (relative.split(path.sep)[0] !== ".." && !path.isAbsolute(relative));
}
