/**
 * Claude Code's project MCP file, `.mcp.json` at the workspace root: its
 * servers are commands a cloned repository brings, so they start only once
 * the user trusts the workspace.
 */
import { lstat } from "node:fs/promises";
import path from "node:path";
import type { McpSource } from "../config/settings.js";

/** The `.mcp.json` of `cwd` as an MCP source when it is a file and the workspace is `trusted` (`--trust-workspace`); otherwise none, with a line for `warn` when the file is there but not trusted. */
export async function workspaceMcpSources(cwd: string, trusted: boolean, warn: (line: string) => void): Promise<McpSource[]> {
  const file = path.join(cwd, ".mcp.json");
  const stats = await lstat(file).catch(() => null);
  if (stats === null || !stats.isFile()) return [];
  if (trusted) return [{ kind: "file", path: file }];
  warn("This workspace's .mcp.json was not read: its servers start once you trust the workspace (--trust-workspace or KOSONG_TRUST_WORKSPACE=1)");
  return [];
}
