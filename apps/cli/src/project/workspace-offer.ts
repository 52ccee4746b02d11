/**
 * What a workspace brings that acts on the user's machine once trusted: the
 * hook commands of its `.claude` settings, the servers of its `.mcp.json`
 * (commands kosong would start) and the permission rules of its settings
 * files (calls they would let run unasked). One trust prompt shows all of
 * it; none of it acts before the user trusts the workspace.
 */
import { type ReadSettingsFile, readSettingsFile } from "../config/settings-file-reads.js";
import type { HookDefinition } from "../hooks/hook-definition.js";
import { type ProjectRuleList, readProjectRuleLists } from "../permissions/permission-rules.js";
import { readWorkspaceMcpServers, type WorkspaceMcpServer } from "./workspace-mcp-file.js";

/** What the workspace brings. */
export interface WorkspaceOffer {
  /** The workspace's hook commands. */
  hooks: readonly HookDefinition[];
  /** The servers of `.mcp.json` (empty when there is none). */
  mcpServers: readonly WorkspaceMcpServer[];
  /** The permission lists of the project's settings files. */
  rules: readonly ProjectRuleList[];
}

/** The offer of `cwd` with its `hooks` (read with the session's hooks, sharing `read`); a file's problems go to `warn`. */
export async function readWorkspaceOffer(cwd: string, hooks: readonly HookDefinition[], warn: (line: string) => void, read: ReadSettingsFile = readSettingsFile): Promise<WorkspaceOffer> {
  const [mcpServers, rules] = await Promise.all([readWorkspaceMcpServers(cwd, read), readProjectRuleLists(cwd, warn, read)]);
  return { hooks, mcpServers: mcpServers ?? [], rules };
}

/** The number of permission rules in `offer`. */
export function offeredRuleCount(offer: WorkspaceOffer): number {
  return offer.rules.reduce((n, { lists }) => n + (lists.allow?.length ?? 0) + (lists.ask?.length ?? 0) + (lists.deny?.length ?? 0), 0);
}

/** True when the workspace brings nothing that needs trust. */
export function isEmptyOffer(offer: WorkspaceOffer): boolean {
  return offer.hooks.length === 0 && offer.mcpServers.length === 0 && offeredRuleCount(offer) === 0;
}
