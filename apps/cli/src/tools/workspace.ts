/**
 * The working directory the agent's file tools are confined to. Every path a
 * tool gets is resolved against it and refused when it leads outside (see
 * `confined-fs.ts`, through which every file tool opens its files).
 */
import { realpath } from "node:fs/promises";
import path from "node:path";
import type { FileRegistry } from "@kosong/soul";

export { isInside, PathEscapeError } from "@kosong/workspace";

/** A command run for the Shell tool by the host instead of a local bash. */
export interface HostCommand {
  command: string;
  cwd: string;
  /** The command's whole environment (already without credentials): the host's own variables must not reach it. */
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * Services of the program hosting the agent (an editor over ACP) that the
 * tools use instead of the disk and a local bash, so edits go through the
 * editor's buffers and commands run in its terminal. Null or absent: not
 * offered. The confinement stays kosong's: a path is resolved, opened and
 * checked through `confined-fs.ts` (after the approval too) and only then
 * handed to the host by its real path; a command is approved (with its
 * scope) before the host runs it. What the host does with a path between
 * that check and its own open is the host's (it opens by name).
 */
export interface WorkspaceHost {
  readTextFile?: ((path: string) => Promise<string>) | null;
  writeTextFile?: ((path: string, content: string) => Promise<void>) | null;
  runCommand?: ((command: HostCommand) => Promise<{ output: string; exitCode: number | null; signal: string | null; timedOut: boolean }>) | null;
}

/** Where the tools work and whom they tell about the files they touch. */
export interface Workspace {
  /** The working directory (absolute, symlinks resolved). */
  root: string;
  /** The session's file registry (reads and writes are reported to it). */
  files: FileRegistry;
  /** The host's file system and terminal, when it offers them. */
  host?: WorkspaceHost;
}

/** A workspace rooted at the real path of `dir`. */
export async function openWorkspace(dir: string, files: FileRegistry, host?: WorkspaceHost): Promise<Workspace> {
  return { root: await realpath(dir), files, ...(host && { host }) };
}

/** `target` relative to the workspace root, for display (`.` for the root). */
export function relativeToRoot(workspace: Workspace, target: string): string {
  return path.relative(workspace.root, target) || ".";
}
