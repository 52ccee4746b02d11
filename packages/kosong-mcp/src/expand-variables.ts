/**
 * `${VAR}` and `${VAR:-default}` in an MCP config, as Claude Code expands
 * them in `.mcp.json`: in a stdio server's `command`, `args`, `env` values
 * and `cwd`, and in an HTTP server's `url` and `headers` values.
 */
import { McpConfigError } from "./mcp-errors.js";

const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * `text` with each `${VAR}` replaced by `env.VAR`, and each
 * `${VAR:-default}` by `env.VAR` or, when that is unset or empty, `default`.
 * Anything else (`$VAR`, `${1}`) is left as written.
 * @throws McpConfigError naming the variable and `where` when a `${VAR}` without default is unset.
 */
export function expandVariables(text: string, env: Readonly<Record<string, string | undefined>>, where: string): string {
  return text.replace(reference, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (fallback !== undefined) return value === undefined || value === "" ? fallback : value;
    if (value === undefined) throw new McpConfigError(`${where} uses \${${name}}, which is not set (set it, or write \${${name}:-default})`);
    return value;
  });
}

/**
 * A raw `mcpServers` object (as read from JSON, before it is checked) with the
 * variables of every string a server starts or connects with expanded from
 * `env` (see {@link expandVariables}); values of other types are left for the
 * check to report. `source` names the config in errors.
 * @throws McpConfigError naming the source, server and variable when a `${VAR}` without default is unset.
 */
export function expandRawServers(servers: unknown, env: Readonly<Record<string, string | undefined>>, source = "MCP config"): unknown {
  if (!isObject(servers)) return servers;
  return Object.fromEntries(Object.entries(servers).map(([name, server]) => [name, isObject(server) ? expandServer(server, env, `${source}: server "${name}"`) : server]));
}

function expandServer(server: Record<string, unknown>, env: Readonly<Record<string, string | undefined>>, where: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...server };
  const one = (text: unknown, key: string) => (typeof text === "string" ? expandVariables(text, env, `${where} ${key}`) : text);
  for (const key of ["command", "url", "cwd"]) if (key in out) out[key] = one(out[key], key);
  if (Array.isArray(out.args)) out.args = out.args.map((arg, index) => one(arg, `args[${index}]`));
  for (const key of ["env", "headers"]) {
    const values = out[key];
    if (isObject(values)) out[key] = Object.fromEntries(Object.entries(values).map(([name, value]) => [name, one(value, `${key}.${name}`)]));
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
