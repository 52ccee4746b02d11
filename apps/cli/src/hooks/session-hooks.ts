/**
 * The hooks a session runs: the user's (config.toml `[[hooks]]` and
 * `~/.claude/settings.json`), always; and the workspace's
 * (`.claude/settings.json`, `.claude/settings.local.json`), only when the
 * workspace is trusted (see `workspace-trust.ts`: remembered from an
 * earlier yes, given with `--trust-workspace`, or answered yes now in the
 * one trust prompt of interactive mode). Otherwise a notice says which hooks
 * did not run.
 */
import path from "node:path";
import type { Settings } from "../config/settings.js";
import { type ReadSettingsFile, readSettingsFile } from "../config/settings-file-reads.js";
import { shownLinkOut } from "../project/link-out-of-workspace.js";
import { readClaudeSettingsHooks, settingsFileHooks } from "./claude-settings-hooks.js";
import type { HookDefinition } from "./hook-definition.js";

/** Options of {@link readSessionHooks}. */
export interface SessionHooksOptions {
  settings: Settings;
  /** The workspace (real path). */
  cwd: string;
  /** The user's home folder (where `~/.claude` is). */
  home: string;
  warn: (line: string) => void;
  /** How the settings files are read (a start shares its reads with the permission rules); from disk by default. */
  read?: ReadSettingsFile | undefined;
}

/** The hooks found: the user's own, and those the workspace brings. */
export interface SessionHookFiles {
  own: HookDefinition[];
  project: HookDefinition[];
}

/** Reads the user's and the workspace's hooks (a file's problems go to `warn`). */
export async function readSessionHooks(options: SessionHooksOptions): Promise<SessionHookFiles> {
  const { settings, cwd, warn } = options;
  const userClaude = path.join(options.home, ".claude");
  const workspaceClaude = path.join(cwd, ".claude");
  const user = await readClaudeSettingsHooks(path.join(userClaude, "settings.json"), "user", options.read);
  // In the home folder itself, its .claude folder is the user's own.
  const workspaceFiles = workspaceClaude === userClaude ? ["settings.local.json"] : ["settings.json", "settings.local.json"];
  const workspace = await Promise.all(workspaceFiles.map((name) => readWorkspaceHooks(cwd, path.join(workspaceClaude, name), workspaceClaude === userClaude, warn, options.read)));
  for (const notice of [user, ...workspace].flatMap((r) => r.notices)) warn(notice);
  const own = [...settings.hooks, ...user.hooks, ...workspace.flatMap((r) => r.hooks.filter((h) => h.scope === "user"))];
  const project = workspace.flatMap((r) => r.hooks.filter((h) => h.scope === "workspace"));
  return { own, project };
}

/**
 * The hooks of the workspace's settings file `file` (the user's own in the
 * home folder itself). One reached through a link out of the workspace
 * (also one swapped in while it is read) is not the workspace's: `warn`
 * says so and it brings none.
 */
async function readWorkspaceHooks(cwd: string, file: string, own: boolean, warn: (line: string) => void, read: ReadSettingsFile = readSettingsFile) {
  if (own) return readClaudeSettingsHooks(file, "user", read);
  const got = await read(file, cwd);
  if (got.kind === "outside") warn(`${await shownLinkOut(cwd, file)} links out of the workspace: the hooks of ${path.relative(cwd, file)} are not the workspace's and are not run`);
  return settingsFileHooks(file, "workspace", got);
}

/**
 * The hooks to run: the user's, and the workspace's when it is `trusted`;
 * else `warn` names those not run and how to trust (`askable`: interactive
 * mode, which asks at start-up).
 */
export function hooksToRun(files: SessionHookFiles, trusted: boolean, cwd: string, askable: boolean, warn: (line: string) => void): HookDefinition[] {
  const { own, project } = files;
  if (project.length === 0) return own;
  if (trusted) return [...own, ...project];
  const sources = [...new Set(project.map((h) => path.relative(cwd, h.source)))].join(", ");
  warn(`${project.length} hook${project.length === 1 ? "" : "s"} of this workspace (${sources}) not run: the workspace is not trusted. ${askable ? "Answer yes at start-up to run them" : "Trust it in an interactive kosong session, or pass --trust-workspace"}.`);
  return own;
}
