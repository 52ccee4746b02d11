/**
 * Connecting every server of a config at once: what a host calls at startup
 * (the CLI with its `mcpServers`, an ACP agent with the servers of
 * `session/new`).
 */
import type { McpServersConfig } from "./mcp-config.js";
import type { McpConnectError } from "./mcp-errors.js";
import { type McpConnectionOptions, McpServerConnection } from "./mcp-server-connection.js";
import { McpToolset, type McpToolsetOptions } from "./mcp-toolset.js";

/** Options of {@link connectMcpServers}: those of each connection and of the toolset. */
export interface ConnectMcpServersOptions extends McpConnectionOptions, McpToolsetOptions {}

/** The connected servers and their tools. Close it when done (or `await using`). */
export interface McpServers extends AsyncDisposable {
  /** The tools of every server that connected, for the agent. */
  readonly toolset: McpToolset;
  /** Every server of the config, in config order, whatever its state. */
  readonly servers: readonly McpServerConnection[];
  /** The servers that could not be connected, each with its reason (also in `servers`, as `failed`). */
  readonly failures: readonly McpConnectError[];
  /** Disconnects every server. */
  close(): Promise<void>;
}

/**
 * Starts or reaches every server of `config` in parallel and waits until
 * each is connected or has failed. Never rejects because of a server: a
 * server that is not found, exits, or does not answer within
 * `connectTimeoutMs` is `failed` with a clear error (in `failures`, and
 * reported through `onEvent`) and the agent runs without its tools.
 *
 * ```ts
 * const mcp = await connectMcpServers({ files: { command: "mcp-server-filesystem", args: ["."] } });
 * for (const failure of mcp.failures) console.error(failure.message);
 * const soul = new Soul({ agent: { name: "a", systemPrompt: "...", toolset: mcp.toolset }, provider, context });
 * // ...
 * await mcp.close();
 * ```
 */
export async function connectMcpServers(config: McpServersConfig, options: ConnectMcpServersOptions = {}): Promise<McpServers> {
  const started = startMcpServers(config, options);
  await started.ready;
  return started;
}

/** Servers being started by {@link startMcpServers}: `failures` is filled (in config order) when `ready` resolves. */
export interface StartingMcpServers extends McpServers {
  /** Resolves (never rejects) once every server is connected or has failed. */
  readonly ready: Promise<void>;
}

/**
 * Starts every server of `config` in parallel and returns at once: a host
 * can draw its prompt while they start (the toolset offers each server's
 * tools once it is connected; `onEvent` says when). Otherwise as
 * {@link connectMcpServers}.
 */
export function startMcpServers(config: McpServersConfig, options: ConnectMcpServersOptions = {}): StartingMcpServers {
  const servers = Object.entries(config).map(([name, server]) => new McpServerConnection(name, server, options));
  const failures: McpConnectError[] = [];
  const ready = Promise.allSettled(servers.map((server) => server.connect())).then((outcomes) => {
    for (const outcome of outcomes) if (outcome.status === "rejected") failures.push(outcome.reason as McpConnectError);
  });
  const close = async (): Promise<void> => {
    await Promise.all(servers.map((server) => server.close()));
  };
  return { toolset: new McpToolset(servers, options), servers, failures, ready, close, [Symbol.asyncDispose]: close };
}
