/**
 * Claude Code's project MCP file, `.mcp.json` at the workspace root: its
 * servers are commands a cloned repository brings, so they start only once
 * the user trusts the workspace (and the trust prompt shows each of them).
 * Like the workspace's permission rules and hooks, a `.mcp.json` reached
 * through a link out of the workspace is not the workspace's: it is read
 * confined (opened, then checked by what was opened, so a link swapped in
 * meanwhile is caught too), and one found outside is neither shown nor
 * started. It is read once, and the servers started are those read.
 */
import path from "node:path";
import { UsageError } from "../cli-error.js";
import type { McpSource } from "../config/settings.js";
import { maxSettingsSize, type ReadSettingsFile, readSettingsFile, type SettingsFileRead } from "../config/settings-file-reads.js";

/** A server of `.mcp.json` as the trust prompt shows it. */
export interface WorkspaceMcpServer {
  name: string;
  /** What starts or is reached: the command and its arguments, or the URL (as written, `${VAR}` unexpanded). */
  launch: string;
}

/** What the notice says of a `.mcp.json` found, as opened, outside the workspace. */
export const mcpLinkOutNotice = ".mcp.json links out of the workspace: its MCP servers are not the workspace's and are not started";

/** `.mcp.json` of workspace `cwd` (a real path), read confined to it through `read` (a start's shared reads, or from disk). */
function readWorkspaceMcpFile(cwd: string, read: ReadSettingsFile): Promise<SettingsFileRead> {
  return read(path.join(cwd, ".mcp.json"), cwd);
}

/**
 * The file's servers as written: null when `cwd` has no `.mcp.json` that
 * would be read (a regular file inside the workspace, at most 1 MiB); a
 * file that is not a valid config gives one entry saying so. Given a
 * start's shared `reader`, these are the servers that start will start.
 */
export async function readWorkspaceMcpServers(cwd: string, reader: ReadSettingsFile = readSettingsFile): Promise<WorkspaceMcpServer[] | null> {
  const read = await readWorkspaceMcpFile(cwd, reader);
  if (read.kind !== "read") return null;
  const json = read.json();
  const servers = json.ok ? (json.value as { mcpServers?: unknown } | null)?.mcpServers : undefined;
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) return [{ name: ".mcp.json", launch: "(not a valid mcpServers config: no server would start)" }];
  return Object.entries(servers as Record<string, unknown>).map(([name, server]) => ({ name, launch: launchOf(server) }));
}

function launchOf(server: unknown): string {
  if (typeof server !== "object" || server === null) return "(not a server)";
  const { command, args, url } = server as { command?: unknown; args?: unknown; url?: unknown };
  if (typeof command === "string") return [command, ...(Array.isArray(args) ? args.map(String) : [])].join(" ");
  return typeof url === "string" ? url : "(neither a command nor a url)";
}

/**
 * The `.mcp.json` of workspace `cwd` (a real path) as an MCP source, its
 * servers as read now, when the workspace is `trusted`; otherwise none,
 * with a line for `warn` when the file is there but not trusted, is
 * reached through a link out of the workspace, cannot be read (not a
 * regular file, no permission) or is larger than 1 MiB. Read through
 * `reader`: the start's shared reads, so that the servers started are the
 * ones its trust question showed, even when the file changed meanwhile.
 * @throws UsageError when a trusted workspace's file is not JSON (exit code 2).
 */
export async function workspaceMcpSources(cwd: string, trusted: boolean, warn: (line: string) => void, reader: ReadSettingsFile = readSettingsFile): Promise<McpSource[]> {
  const file = path.join(cwd, ".mcp.json");
  const read = await readWorkspaceMcpFile(cwd, reader);
  if (read.kind === "missing") return [];
  if (read.kind === "outside") {
    warn(mcpLinkOutNotice);
    return [];
  }
  if (read.kind !== "read") {
    warn(`This workspace's .mcp.json ${read.kind === "too-large" ? `is larger than ${maxSettingsSize}` : `cannot be read (${read.message})`}: its servers are not started`);
    return [];
  }
  if (!trusted) {
    warn("This workspace's .mcp.json was not read: its servers start once you trust the workspace (answer yes at start-up in an interactive session, or --trust-workspace / KOSONG_TRUST_WORKSPACE=1)");
    return [];
  }
  const json = read.json();
  if (!json.ok) throw new UsageError(`The MCP config file ${file} is not valid JSON: ${json.message}`);
  return [{ kind: "config", path: file, mcpServers: (json.value as { mcpServers?: unknown } | null)?.mcpServers }];
}
