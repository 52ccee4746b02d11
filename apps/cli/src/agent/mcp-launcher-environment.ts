/**
 * The variables of kosong's environment an MCP server's launcher needs:
 * `npx`, `uvx` and the like reach a registry through the user's proxy, trust
 * the user's CA, read npm's own config and caches and print in the user's
 * locale. Everything else stays out, and so do credentials, whatever their
 * name says: the Shell tool's default excludes (`*TOKEN*`, `*AUTH*`,
 * `*KEY*`, ...), URLs with passwords, and the credentials kosong reads
 * (see {@link childEnvironment}).
 */
import { isStdioServer, type McpServersConfig } from "@kosong/mcp";
import { childEnvironment } from "../tools/child-environment.js";

/** Name patterns (case-insensitive, `*` wildcards) passed to MCP servers. */
export const launcherVariables = [
  // where things are
  "HOME", "PATH", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "TEMP", "TMP", "XDG_*", "APPDATA", "LOCALAPPDATA", "USERPROFILE",
  // locale
  "LANG", "LANGUAGE", "LC_*", "TZ",
  // network: proxies and CAs
  "*_PROXY", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
  // node, npm, pnpm, yarn, bun and python launchers
  "NODE_OPTIONS", "NODE_PATH", "NPM_CONFIG_*", "PNPM_HOME", "COREPACK_*", "YARN_*", "NVM_*", "VOLTA_HOME", "FNM_*", "BUN_INSTALL", "UV_*", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CERT",
] as const;

/** The launcher variables of `env` (kosong's own), without credentials: the base of every stdio MCP server's environment. */
export function launcherEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  return childEnvironment(env, { inherit: "all", ignoreDefaultExcludes: false, exclude: [], includeOnly: [...launcherVariables], set: {} });
}

/**
 * `config` with each stdio server's environment on top of the launcher
 * variables of `env`: what every stdio server kosong starts gets, whether
 * the config file, `.mcp.json`, `--mcp-config-file` or an ACP editor named it.
 */
export function withLauncherEnvironment(config: McpServersConfig, env: NodeJS.ProcessEnv): McpServersConfig {
  const base = launcherEnvironment(env);
  return Object.fromEntries(Object.entries(config).map(([name, server]) => [name, isStdioServer(server) ? { ...server, env: { ...base, ...server.env } } : server]));
}
