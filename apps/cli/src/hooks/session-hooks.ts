/**
 * The hooks a session runs: the user's (config.toml `[[hooks]]` and
 * `~/.claude/settings.json`), always; and the workspace's
 * (`.claude/settings.json`, `.claude/settings.local.json`), only when the
 * workspace is trusted with them: remembered from an earlier yes, given
 * with `--trust-workspace`, or answered yes now (interactive mode asks,
 * showing the commands). Other modes never trust on their own: they say
 * which hooks did not run.
 */
import path from "node:path";
import type { Settings } from "../config/settings.js";
import { readClaudeSettingsHooks } from "./claude-settings-hooks.js";
import type { HookDefinition } from "./hook-definition.js";
import { isTrusted, trustWorkspace } from "./workspace-trust.js";

/** Asks the user whether to run the workspace's `hooks`; true for yes. */
export type AskWorkspaceTrust = (hooks: readonly HookDefinition[]) => Promise<boolean>;

/** Options of {@link loadSessionHooks}. */
export interface SessionHooksOptions {
  settings: Settings;
  /** The workspace (real path). */
  cwd: string;
  /** The user's home folder (where `~/.claude` is). */
  home: string;
  /** Asks for trust; without it (print mode, --wire, acp) an untrusted workspace's hooks do not run. */
  ask?: AskWorkspaceTrust;
  warn: (line: string) => void;
}

/** The hooks to run in this session. */
export async function loadSessionHooks(options: SessionHooksOptions): Promise<HookDefinition[]> {
  const { settings, cwd, warn } = options;
  const userClaude = path.join(options.home, ".claude");
  const workspaceClaude = path.join(cwd, ".claude");
  const user = await readClaudeSettingsHooks(path.join(userClaude, "settings.json"), "user");
  // In the home folder itself, its .claude folder is the user's own.
  const workspaceFiles = workspaceClaude === userClaude ? ["settings.local.json"] : ["settings.json", "settings.local.json"];
  const workspace = await Promise.all(workspaceFiles.map((name) => readClaudeSettingsHooks(path.join(workspaceClaude, name), workspaceClaude === userClaude ? "user" : "workspace")));
  for (const notice of [user, ...workspace].flatMap((r) => r.notices)) warn(notice);
  const own = [...settings.hooks, ...user.hooks, ...workspace.flatMap((r) => r.hooks.filter((h) => h.scope === "user"))];
  const project = workspace.flatMap((r) => r.hooks.filter((h) => h.scope === "workspace"));
  if (project.length === 0) return own;
  if (settings.trustWorkspace || (await isTrusted(settings.home, cwd, project))) return [...own, ...project];
  if (options.ask && (await options.ask(project))) {
    await trustWorkspace(settings.home, cwd, project);
    return [...own, ...project];
  }
  const sources = [...new Set(project.map((h) => path.relative(cwd, h.source)))].join(", ");
  warn(`${project.length} hook${project.length === 1 ? "" : "s"} of this workspace (${sources}) not run: the workspace is not trusted. ${options.ask ? "Answer yes at start-up to run them" : "Trust it in an interactive kosong session, or pass --trust-workspace"}.`);
  return own;
}
