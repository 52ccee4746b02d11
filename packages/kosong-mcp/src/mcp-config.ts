/**
 * The `mcpServers` config that Claude, kimi-cli and most MCP hosts use:
 *
 * ```json
 * {
 *   "mcpServers": {
 *     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "env": { "DEBUG": "0" } },
 *     "remote": { "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer ..." } }
 *   }
 * }
 * ```
 *
 * A server with `command` runs as a child process over stdio; one with
 * `url` is reached over streamable HTTP. `type` (or kimi-cli's `transport`)
 * may say so explicitly; `disabled: true` leaves a server out; `sandbox:
 * true` asks the host to run a stdio server in its sandbox; other keys
 * that hosts add (`autoApprove`, `timeout`, ...) are ignored.
 */
import { readFile } from "node:fs/promises";
import * as z from "zod";
import { expandRawServers } from "./expand-variables.js";
import { McpConfigError } from "./mcp-errors.js";

/** Options of {@link parseMcpConfig} and {@link loadMcpConfigFile}. */
export interface McpConfigOptions {
  /**
   * Variables for `${VAR}` and `${VAR:-default}` in each server's `command`,
   * `args`, `env` values, `cwd`, `url` and `headers` values, expanded as
   * Claude Code does (typically `process.env`). Without it nothing is expanded.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/** A server started as a child process and spoken to over its stdin and stdout. */
export interface McpStdioServerConfig {
  type?: "stdio";
  /** The program to run (found on `PATH`); no shell is involved. */
  command: string;
  args?: string[];
  /**
   * Environment variables for the server. The child gets only these plus a
   * few safe ones of this process (`HOME`, `PATH`, `USER`, `SHELL`, `TERM`,
   * `LOGNAME`): never this process's credentials. A host that starts
   * launchers such as `npx` adds what they need (proxy, CA, npm config) here.
   */
  env?: Record<string, string>;
  /** The working directory of the server (default: this process's). */
  cwd?: string;
  /**
   * Run the server in the host's sandbox (`"sandbox": true`). This package
   * only carries the setting: the host wraps the command (the kosong CLI
   * runs it under bubblewrap, and leaves the server out where it has no
   * sandbox).
   */
  sandbox?: boolean;
}

/** A server reached over MCP's streamable HTTP transport. */
export interface McpHttpServerConfig {
  type?: "http";
  /** The endpoint, `http:` or `https:`. */
  url: string;
  /** Headers sent with every request (e.g. `Authorization`). */
  headers?: Record<string, string>;
}

/** One server of the config. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** Servers by name. */
export type McpServersConfig = Record<string, McpServerConfig>;

const stringMap = z.record(z.string(), z.string());
const httpTypes = ["http", "streamable-http", "streamable_http", "streamableHttp"] as const;

const serverSchema = z
  .looseObject({
    type: z.string().optional(),
    transport: z.string().optional(),
    command: z.string().min(1, "must not be empty").optional(),
    args: z.array(z.string()).optional(),
    env: stringMap.optional(),
    cwd: z.string().min(1).optional(),
    url: z.url({ protocol: /^https?$/, error: "must be an http: or https: URL" }).optional(),
    headers: stringMap.optional(),
    disabled: z.boolean().optional(),
    sandbox: z.boolean().optional(),
  })
  .superRefine((server, ctx) => {
    const kind = server.type ?? server.transport;
    if (kind === "sse") ctx.addIssue({ code: "custom", message: 'the "sse" transport is not supported: use the server\'s streamable HTTP endpoint (type "http")' });
    else if (kind !== undefined && kind !== "stdio" && !(httpTypes as readonly string[]).includes(kind)) {
      ctx.addIssue({ code: "custom", message: `unknown transport "${kind}" (one of: stdio, http)` });
    } else if (server.command === undefined && server.url === undefined) ctx.addIssue({ code: "custom", message: 'needs "command" (a stdio server) or "url" (a streamable HTTP server)' });
    else if (server.command !== undefined && server.url !== undefined) ctx.addIssue({ code: "custom", message: 'has both "command" and "url": give one' });
    else if (kind === "stdio" && server.command === undefined) ctx.addIssue({ code: "custom", message: 'type "stdio" needs "command"' });
    else if (kind !== undefined && kind !== "stdio" && server.url === undefined) ctx.addIssue({ code: "custom", message: `type "${kind}" needs "url"` });
  });

const fileSchema = z.looseObject({ mcpServers: z.record(z.string().min(1, "a server name must not be empty"), serverSchema) });

/**
 * The servers of a parsed config object (`{"mcpServers": {...}}`), without
 * those marked `disabled`. `source` names where it came from in errors;
 * `options.env` expands `${VAR}` references.
 * @throws McpConfigError naming the source, the server and the problem (or the unset variable).
 */
export function parseMcpConfig(value: unknown, source = "MCP config", options: McpConfigOptions = {}): McpServersConfig {
  const expanded = options.env && typeof value === "object" && value !== null && "mcpServers" in value ? { ...value, mcpServers: expandRawServers(value.mcpServers, options.env, source) } : value;
  const parsed = fileSchema.safeParse(expanded);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  - ${issue.path.length ? `${issue.path.map(String).join(".")}: ` : ""}${issue.message}`);
    throw new McpConfigError(`${source} is not a valid mcpServers config:\n${problems.join("\n")}`);
  }
  const servers: McpServersConfig = {};
  for (const [name, server] of Object.entries(parsed.data.mcpServers)) {
    if (server.disabled) continue;
    servers[name] = server.command !== undefined ? stdioConfig(server.command, server) : httpConfig(server.url!, server.headers);
  }
  return servers;
}

/**
 * Reads a JSON file holding `{"mcpServers": {...}}` (`options.env` expands `${VAR}` references).
 * @throws McpConfigError when the file cannot be read, is not JSON, or is not a valid config.
 */
export async function loadMcpConfigFile(file: string, options: McpConfigOptions = {}): Promise<McpServersConfig> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new McpConfigError(`Cannot read the MCP config file ${file}: ${(error as Error).message}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(`The MCP config file ${file} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  return parseMcpConfig(json, file, options);
}

/** True for a server reached over stdio. */
export function isStdioServer(config: McpServerConfig): config is McpStdioServerConfig {
  return "command" in config && typeof config.command === "string";
}

function stdioConfig(command: string, server: { args?: string[] | undefined; env?: Record<string, string> | undefined; cwd?: string | undefined; sandbox?: boolean | undefined }): McpStdioServerConfig {
  const config: McpStdioServerConfig = { command };
  if (server.args) config.args = server.args;
  if (server.env) config.env = server.env;
  if (server.cwd) config.cwd = server.cwd;
  if (server.sandbox) config.sandbox = true;
  return config;
}

function httpConfig(url: string, headers: Record<string, string> | undefined): McpHttpServerConfig {
  return headers ? { url, headers } : { url };
}
