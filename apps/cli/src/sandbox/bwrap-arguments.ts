/**
 * The bubblewrap command line of one sandboxed command. The sandbox sees
 * the whole file system read-only, with
 * - the workspace and a private temp folder (at `/tmp`) writable, the
 *   workspace's `.git/hooks`, `.git/config` (and a `.git` file) read-only;
 * - the entries of the machine's `/tmp` that hold what the command needs
 *   (see `machine-tmp.ts`) read-only over the private `/tmp`;
 * - the hidden paths covered by empty, read-only ones;
 * - its own `/dev`, `/proc` and process tree (it cannot see or signal
 *   kosong's processes), no capabilities, a new session (no terminal
 *   input injection; a command spawned detached, a Shell command or a job, has none to begin with), and its own network namespace unless the network is
 *   the machine's: only loopback, or the bridge to kosong's proxy.
 * It dies with kosong.
 */
import path from "node:path";
import type { HiddenPath } from "./hidden-paths.js";

/** What one sandboxed command may use. */
export interface SandboxLayout {
  /** The workspace's real path: writable. */
  workspace: string;
  /** The command's working directory. */
  cwd: string;
  /** The private temp folder (real path), mounted at `/tmp`. */
  tempDir: string;
  /** Entries of the machine's `/tmp` (e.g. `/tmp/tmp.x1Yz`) shown read-only over the private one (default none). */
  machineTmp?: readonly string[];
  /** Paths covered by empty ones. */
  hidden: readonly HiddenPath[];
  /** The workspace's `.git` paths made read-only (existing ones, real paths). */
  readOnly: readonly string[];
  /** `"none"`: loopback only; `"host"`: the machine's network; `"proxy"`: loopback and the proxy's socket, bound at {@link proxySocketInside}. */
  network: { kind: "none" } | { kind: "host" } | { kind: "proxy"; socketPath: string };
  /**
   * Whether bwrap starts the command in a new session (default true). False
   * only when the caller already started bwrap in a session of its own
   * without a terminal (a detached background job): the command then stays
   * in bwrap's process group, so that a signal to that group reaches the
   * sandbox's init too and ends the whole sandbox.
   */
  newSession?: boolean;
}

/** Where the proxy's socket is inside the sandbox. */
export const proxySocketInside = "/tmp/.kosong-proxy.sock";

/** bwrap's arguments, up to and including `--` (the command follows). */
export function bwrapArguments(layout: SandboxLayout): string[] {
  const { workspace } = layout;
  const containsWorkspace = (p: string) => workspace === p || workspace.startsWith(`${p}${path.sep}`);
  const hide = (hidden: HiddenPath) => (hidden.directory ? ["--tmpfs", hidden.path, "--remount-ro", hidden.path] : ["--ro-bind", "/dev/null", hidden.path]);
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", layout.tempDir, "/tmp"];
  // Before the workspace (which may lie inside one of them) and the hidden paths (which may too).
  for (const entry of layout.machineTmp ?? []) args.push("--ro-bind", entry, entry);
  // A hidden folder holding the workspace is covered first and made read-only last, so that the workspace stays visible inside it.
  const holding = layout.hidden.filter((hidden) => containsWorkspace(hidden.path));
  for (const hidden of holding) args.push("--tmpfs", hidden.path);
  args.push("--bind", workspace, workspace);
  for (const hidden of layout.hidden) if (!containsWorkspace(hidden.path)) args.push(...hide(hidden));
  for (const hidden of holding) args.push("--remount-ro", hidden.path);
  for (const p of layout.readOnly) args.push("--ro-bind", p, p);
  if (layout.network.kind === "proxy") args.push("--ro-bind", layout.network.socketPath, proxySocketInside);
  args.push("--unshare-all", "--unshare-user");
  if (layout.network.kind === "host") args.push("--share-net");
  args.push("--cap-drop", "ALL", "--die-with-parent", ...(layout.newSession === false ? [] : ["--new-session"]), "--chdir", layout.cwd, "--");
  return args;
}
