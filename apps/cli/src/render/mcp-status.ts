/**
 * What `/mcp` shows: each MCP server with its state, transport, restarts,
 * error, and its tools under the names the model calls them by.
 */
import type { McpServers } from "@kosong/mcp";
import type { Style } from "./terminal-style.js";

/** The lines of `/mcp` for `mcp` (null: no servers configured). Type-only use of @kosong/mcp: rendering never loads the MCP SDK. */
export function mcpStatusLines(mcp: McpServers | null, style: Style): string[] {
  if (mcp === null || mcp.servers.length === 0) return ["No MCP servers configured: add `mcpServers` to the config file, or pass --mcp-config-file FILE."];
  const entries = mcp.toolset.entries();
  const lines: string[] = [];
  for (const server of mcp.servers) {
    const tools = entries.filter((entry) => entry.server === server);
    const state = server.state === "connected" ? style.green(server.state) : server.state === "failed" ? style.red(server.state) : style.yellow(server.state);
    const restarts = server.restarts > 0 ? ` · restarted ${server.restarts}×` : "";
    lines.push(`${style.bold(server.displayName)}  ${state} · ${server.transport}${restarts} · ${tools.length} tool${tools.length === 1 ? "" : "s"}`);
    if (server.error !== null) lines.push(...server.error.split("\n").map((line) => style.dim(`  ${line}`)));
    for (const warning of server.warnings) lines.push(style.yellow(`  ${warning}`));
    for (const { qualifiedName, tool } of tools) lines.push(`  ${qualifiedName}${tool.readOnlyHint ? style.dim(" (read-only)") : ""}  ${style.dim(firstLine(tool.description))}`);
  }
  return lines;
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0]!.trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
