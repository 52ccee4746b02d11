/**
 * The MCP servers an ACP editor passes in `session/new` and `session/load`,
 * as the `mcpServers` config of `@kosong/mcp`: ACP sends a list of servers
 * whose environment and headers are `[{ name, value }]` arrays; the config
 * has servers by name with plain maps. The editor's strings are taken as
 * data only (no shell); `${VAR}` and `${VAR:-default}` in them expand from
 * kosong's environment as in a config file.
 */
import type { ConnectMcpServers } from "@kosong/acp";
import { McpConfigError, type McpServerConfig, type McpServersConfig, parseMcpConfig, visibleText } from "@kosong/mcp";

/** A server as ACP sends it (stdio, `http` or `sse`). */
export type AcpMcpServer = Parameters<ConnectMcpServers>[0][number];

/**
 * The config of `servers` (a later server of the same name wins), each
 * checked (and its `${VAR}` references expanded from `env`) as a config
 * file's server is. SSE servers, which kosong's MCP client does not speak
 * (`initialize` says `sse: false`), and invalid ones (or ones naming an
 * unset variable) are left out and reported through `warn`.
 */
export function acpMcpConfig(servers: readonly AcpMcpServer[], warn: (line: string) => void, env: NodeJS.ProcessEnv = process.env): McpServersConfig {
  const config = Object.create(null) as McpServersConfig;
  for (const server of servers) {
    if ("type" in server && server.type === "sse") {
      warn(`MCP server \`${visibleText(server.name)}\` uses SSE, which kosong does not support (the session runs without it)`);
      continue;
    }
    const entry: McpServerConfig =
      "command" in server ? { command: server.command, args: [...server.args], env: pairs(server.env) } : { type: "http", url: server.url, headers: pairs(server.headers) };
    try {
      Object.assign(config, parseMcpConfig({ mcpServers: { [server.name]: entry } }, "the editor's MCP servers", { env }));
    } catch (error) {
      if (!McpConfigError.isInstance(error)) throw error;
      warn(`${error.message} (the session runs without it)`);
    }
  }
  return config;
}

/** ACP's `[{ name, value }]` as a map (a later name wins). */
function pairs(list: ReadonlyArray<{ name: string; value: string }> | undefined): Record<string, string> {
  return Object.fromEntries((list ?? []).map(({ name, value }) => [name, value]));
}
