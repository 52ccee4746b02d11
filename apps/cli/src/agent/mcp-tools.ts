/**
 * MCP servers for a session, from the config file's `mcpServers` and each
 * `--mcp-config-file` (and, in `kosong acp`, those the editor passes).
 * Imported only when servers are configured, so a run without them never
 * loads the MCP SDK.
 */
import type { Toolset } from "@kosong/core";
import { connectMcpServers, isStdioServer, type StartingMcpServers, startMcpServers, loadMcpConfigFile, McpConfigError, type McpServerEvent, type McpServers, type McpServersConfig, parseMcpConfig, visibleText, withMcpTools } from "@kosong/mcp";
import { UsageError } from "../cli-error.js";
import type { McpSource } from "../config/settings.js";
import type { CommandSandbox } from "../sandbox/command-sandbox.js";
import { mcpFailureHint } from "./mcp-failure-hint.js";
import { withLauncherEnvironment } from "./mcp-launcher-environment.js";

/** The servers and the agent's toolset with their tools added. */
export interface SessionMcp {
  mcp: McpServers;
  toolset: Toolset;
  /** Resolves once every server is connected or has failed (at once unless started in the background). */
  ready: Promise<void>;
}

/**
 * Reads the servers of `sources` (a later server of the same name wins),
 * starts them with `cwd` as the default working directory of stdio
 * servers, and adds their tools to `toolset`. A server that does not start
 * is reported through `warn` (with its likely cause) and the session runs
 * without it; so is a server that crashes or restarts later. `${VAR}` and
 * `${VAR:-default}` expand from `env`; stdio servers get the launcher
 * variables of `env` (proxy, CA, locale, npm config; no credentials) under
 * their own `env`. A stdio server with `sandbox: true` runs in `sandbox`,
 * or, without one, is left out (and reported). With `progress`, the servers
 * start in the background: it gets a line per server at once (starting)
 * and one as each is ready, and the call returns without waiting.
 * @throws UsageError when a source cannot be read or is not a valid config (exit code 2).
 */
export async function openSessionMcp(sources: readonly McpSource[], cwd: string, toolset: Toolset, warn: (line: string) => void, sandbox: CommandSandbox | null = null, env: NodeJS.ProcessEnv = process.env, progress?: (line: string) => void, startTimeoutMs: number | null = null): Promise<SessionMcp> {
  const config = await readMcpSources(sources, env);
  // The sandbox's first use tries it (only when a server asks for it); one that cannot start here is as none.
  const asked = Object.values(config).some((server) => isStdioServer(server) && server.sandbox === true);
  const box = asked ? ((await sandbox?.usable()) ?? null) : null;
  const servers = sandboxed(withLauncherEnvironment(config, env), box, warn);
  if (progress === undefined) {
    const mcp = await connectReporting(servers, cwd, warn, startTimeoutMs);
    return { mcp, toolset: withMcpTools(toolset, mcp.toolset), ready: Promise.resolve() };
  }
  const mcp = startReporting(servers, cwd, warn, progress, startTimeoutMs);
  return { mcp, toolset: withMcpTools(toolset, mcp.toolset), ready: mcp.ready };
}

/**
 * Starts the servers of `config` in the background (see
 * {@link openSessionMcp}'s `progress`): a line per server now, a line as
 * each is ready or fails (with its likely cause); later crashes go to `warn`.
 */
function startReporting(config: McpServersConfig, cwd: string, warn: (line: string) => void, progress: (line: string) => void, startTimeoutMs: number | null): StartingMcpServers {
  for (const server of Object.values(config)) if ("command" in server && server.cwd === undefined) server.cwd = cwd;
  const started = new Set<string>();
  const mcp = startMcpServers(config, {
    ...startTimeout(startTimeoutMs),
    onEvent: (event) => {
      if (!started.has(event.server)) {
        started.add(event.server);
        if (event.type === "connected") progress(`MCP server \`${visibleText(event.server)}\` ready: ${event.tools} tool${event.tools === 1 ? "" : "s"}`);
        else if (event.type === "failed") progress(`${event.error}${mcpFailureHint(config[event.server], event.error)} (the session runs without it)`);
        return;
      }
      reportLater(event, warn);
    },
  });
  for (const [name, server] of Object.entries(config)) progress(`MCP server \`${visibleText(name)}\` starting${isStdioServer(server) ? ` (${visibleText(server.command)})` : ""}…`);
  return mcp;
}

/**
 * Starts the servers of `config` with `cwd` as the default working
 * directory of stdio servers, each given `startTimeoutMs` to start (null:
 * @kosong/mcp's default). A server that does not start is reported
 * through `warn` (with its likely cause) and left out; so is a server that crashes or restarts later.
 */
export async function connectReporting(config: McpServersConfig, cwd: string, warn: (line: string) => void, startTimeoutMs: number | null = null): Promise<McpServers> {
  for (const server of Object.values(config)) if ("command" in server && server.cwd === undefined) server.cwd = cwd;
  let started = false;
  const mcp = await connectMcpServers(config, { ...startTimeout(startTimeoutMs), onEvent: (event) => started && reportLater(event, warn) });
  started = true;
  for (const failure of mcp.failures) warn(`${failure.message}${mcpFailureHint(config[failure.server], failure.message)} (the session runs without it)`);
  return mcp;
}

/**
 * `config` with each stdio server that asks for the sandbox wrapped in it
 * (working in its `cwd`, or the workspace); without a sandbox such a server
 * is left out, and `warn` says so.
 */
function sandboxed(config: McpServersConfig, sandbox: CommandSandbox | null, warn: (line: string) => void): McpServersConfig {
  const out: McpServersConfig = {};
  for (const [name, server] of Object.entries(config)) {
    if (!isStdioServer(server) || !server.sandbox) {
      out[name] = server;
    } else if (sandbox === null) {
      warn(`MCP server \`${visibleText(name)}\` asks for the sandbox ("sandbox": true), which this session does not have: not started`);
    } else {
      const { file, args, env } = sandbox.wrap(server.command, server.args ?? [], server.env ?? {}, server.cwd);
      out[name] = { ...server, command: file, args, env };
    }
  }
  return out;
}

/**
 * The servers of `sources`, in order (a later server of the same name wins),
 * `${VAR}` expanded from `env`.
 * @throws UsageError when a source cannot be read or is not a valid config (exit code 2).
 */
export async function readMcpSources(sources: readonly McpSource[], env: NodeJS.ProcessEnv): Promise<McpServersConfig> {
  const config: McpServersConfig = {};
  for (const source of sources) Object.assign(config, await readSource(source, env));
  return config;
}

async function readSource(source: McpSource, env: NodeJS.ProcessEnv): Promise<McpServersConfig> {
  try {
    return source.kind === "config" ? parseMcpConfig({ mcpServers: source.mcpServers }, source.path, { env }) : await loadMcpConfigFile(source.path, { env });
  } catch (error) {
    if (McpConfigError.isInstance(error)) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/** The connection option of a start timeout (none: the default). */
function startTimeout(ms: number | null): { connectTimeoutMs?: number } {
  return ms === null ? {} : { connectTimeoutMs: ms };
}

/** Reports what happens to a server after the start (failures to start are reported once, from `failures`). */
function reportLater(event: McpServerEvent, warn: (line: string) => void): void {
  if (event.type === "crashed") warn(`${event.error}${event.restarting ? " (restarting it)" : ""}`);
  else if (event.type === "restarted") warn(`MCP server \`${visibleText(event.server)}\` restarted (${event.tools} tools)`);
  else if (event.type === "failed") warn(`${event.error} (the session runs without it)`);
}
