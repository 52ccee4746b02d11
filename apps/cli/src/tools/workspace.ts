/**
 * The working directory the agent's file tools are confined to. Every path a
 * tool gets is resolved against it and refused when it leads outside:
 * through `..`, an absolute path elsewhere, or a symlink (of the file or of
 * any folder on the way) that points out.
 */
import { appendFile, readFile, realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import type { FileRegistry } from "@kosong/soul";

/** Thrown for a path outside the workspace; tools turn it into an error result. */
export class PathEscapeError extends Error {
  constructor(readonly requested: string) {
    super(`Path \`${requested}\` is outside the working directory; only files inside it can be used.`);
    this.name = "PathEscapeError";
  }
}

/** A command run for the Shell tool by the host instead of a local bash. */
export interface HostCommand {
  command: string;
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * Services of the program hosting the agent (an editor over ACP) that the
 * tools use instead of the disk and a local bash, so edits go through the
 * editor's buffers and commands run in its terminal. Paths are still checked
 * against the workspace first. Null or absent: not offered.
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

/** Reads a file of the workspace (already resolved) as UTF-8, through the host when it offers reading. */
export function readWorkspaceText(workspace: Workspace, file: string): Promise<string> {
  return workspace.host?.readTextFile ? workspace.host.readTextFile(file) : readFile(file, "utf8");
}

/** Writes a file of the workspace (already resolved), through the host when it offers writing. */
export async function writeWorkspaceText(workspace: Workspace, file: string, content: string, mode: "overwrite" | "append" = "overwrite"): Promise<void> {
  const write = workspace.host?.writeTextFile;
  if (!write) return mode === "append" ? appendFile(file, content) : writeFile(file, content);
  const before = mode === "append" ? await readWorkspaceText(workspace, file).catch(() => "") : "";
  await write(file, before + content);
}

/**
 * The absolute real path of `requested` inside the workspace. The file need
 * not exist (a file to create): its nearest existing ancestor is resolved
 * instead. Throws {@link PathEscapeError} when it is outside.
 */
export async function resolveInside(workspace: Workspace, requested: string): Promise<string> {
  const lexical = path.resolve(workspace.root, requested);
  if (!isInside(workspace.root, lexical)) throw new PathEscapeError(requested);
  const real = await realpathOfNearest(lexical);
  if (!isInside(workspace.root, real)) throw new PathEscapeError(requested);
  return real;
}

/** `target` relative to the workspace root, for display (`.` for the root). */
export function relativeToRoot(workspace: Workspace, target: string): string {
  return path.relative(workspace.root, target) || ".";
}

function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

async function realpathOfNearest(target: string): Promise<string> {
  const missing: string[] = [];
  let current = target;
  for (;;) {
    try {
      return path.join(await realpath(current), ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      const parent = path.dirname(current);
      if (parent === current) return target;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}
