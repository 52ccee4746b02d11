/**
 * Claude Code's project MCP file, `.mcp.json` at the workspace root: its
 * servers are commands a cloned repository brings, so they start only once
 * the user trusts the workspace (and the trust prompt shows each of them).
 */
import { lstat, readFile } from "node:fs/promises";
import path from "node:path";
import type { McpSource } from "../config/settings.js";

/** A server of `.mcp.json` as the trust prompt shows it. */
export interface WorkspaceMcpServer {
  name: string;
  /** What starts or is reached: the command and its arguments, or the URL (as written, `${VAR}` unexpanded). */
  launch: string;
}

/** The file's servers as written: null when there is no `.mcp.json` (a file) in `cwd`; a file that is not a valid config gives one entry saying so. */
export async function readWorkspaceMcpServers(cwd: string): Promise<WorkspaceMcpServer[] | null> {
  const file = path.join(cwd, ".mcp.json");
  const stats = await lstat(file).catch(() => null);
  if (stats === null || !stats.isFile()) return null;
  let servers: unknown;
  try {
    servers = (JSON.parse(await readFile(file, "utf8")) as { mcpServers?: unknown })?.mcpServers;
  } catch {
    servers = undefined;
  }
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) return [{ name: ".mcp.json", launch: "(not a valid mcpServers config: no server would start)" }];
  return Object.entries(servers as Record<string, unknown>).map(([name, server]) => ({ name, launch: launchOf(server) }));
}

function launchOf(server: unknown): string {
  if (typeof server !== "object" || server === null) return "(not a server)";
  const { command, args, url } = server as { command?: unknown; args?: unknown; url?: unknown };
  if (typeof command === "string") return [command, ...(Array.isArray(args) ? args.map(String) : [])].join(" ");
  return typeof url === "string" ? url : "(neither a command nor a url)";
}

/** The `.mcp.json` of `cwd` as an MCP source when it is a file and the workspace is `trusted`; otherwise none, with a line for `warn` when the file is there but not trusted. */
export async function workspaceMcpSources(cwd: string, trusted: boolean, warn: (line: string) => void): Promise<McpSource[]> {
  const file = path.join(cwd, ".mcp.json");
  const stats = await lstat(file).catch(() => null);
  if (stats === null || !stats.isFile()) return [];
  if (trusted) return [{ kind: "file", path: file }];
  warn("This workspace's .mcp.json was not read: its servers start once you trust the workspace (answer yes at start-up in an interactive session, or --trust-workspace / KOSONG_TRUST_WORKSPACE=1)");
  return [];
}
