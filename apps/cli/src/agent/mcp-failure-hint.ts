/**
 * The likely cause of an MCP server that did not start, for the line the
 * user reads: a package launcher (`npx`, `uvx`, ...) that runs out of time is
 * usually still downloading, or cannot reach its registry.
 */
import path from "node:path";
import { isStdioServer, type McpServerConfig } from "@kosong/mcp";

const launchers = new Set(["npx", "pnpx", "bunx", "uvx", "pipx", "pnpm", "yarn", "npm", "bun", "uv"]);

/** A sentence naming the likely cause of `error` for `server`, or "" when there is nothing more to say than the error. */
export function mcpFailureHint(server: McpServerConfig | undefined, error: string): string {
  if (server === undefined || !isStdioServer(server)) return "";
  const launcher = path.basename(server.command);
  if (!launchers.has(launcher)) return "";
  if (/within \d+ ms/.test(error)) {
    return ` — \`${launcher}\` may still be downloading the package, or cannot reach its registry: check the proxy (HTTPS_PROXY), CA (NODE_EXTRA_CA_CERTS) and registry settings of this shell, or install the server and give its command directly`;
  }
  if (/ENOENT|not found/i.test(error)) return ` — \`${launcher}\` is not on PATH`;
  return "";
}
