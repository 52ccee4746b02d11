/**
 * The environment of the commands the agent runs (the Shell tool): built from
 * kosong's own by a policy after Codex's `shell_environment_policy`, so that
 * an innocent-looking `env` cannot send the provider's API key, or any other
 * secret of the user's shell, to the model and into the session file.
 *
 * Steps, in order: start from all variables, the core ones or none
 * (`inherit`); drop those matching the default excludes (unless
 * `ignoreDefaultExcludes`) and `exclude`; keep only those matching
 * `includeOnly` when it is not empty; add `set`. Unless
 * `ignoreDefaultExcludes`, also drop every variable whose value is a URL
 * with a password (`postgres://user:pass@host`) or equals the value of a
 * variable the default excludes matched (a copy of `GH_PAT` under another
 * name). Last, whatever the policy says, the credential variables kosong
 * reads and every variable whose value contains a credential kosong uses are
 * removed.
 */
import { hasUrlPassword } from "@kosong/core";

/** How the Shell tool's environment is built (config file: `[shell_environment_policy]`). */
export interface EnvironmentPolicy {
  /** Start from every variable, only {@link coreVariables}, or none. */
  inherit: "all" | "core" | "none";
  /** Keep the variables {@link defaultExcludes} would remove. */
  ignoreDefaultExcludes: boolean;
  /** More name patterns to remove (`*` and `?` wildcards, case-insensitive). */
  exclude: string[];
  /** When not empty, only names matching one of these patterns are kept. */
  includeOnly: string[];
  /** Variables set for every command. */
  set: Record<string, string>;
}

/** The policy without a config: everything but the default excludes and the credentials. */
export const defaultEnvironmentPolicy: EnvironmentPolicy = { inherit: "all", ignoreDefaultExcludes: false, exclude: [], includeOnly: [], set: {} };

/** Name patterns removed by default: names that usually hold secrets (tokens, passwords, `GH_PAT`, `NPM_AUTH`, webhook URLs, Sentry DSNs). */
export const defaultExcludes = ["*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*", "*PASSWD*", "*CREDENTIAL*", "*_PAT", "*AUTH*", "*WEBHOOK*", "*_DSN", "*COOKIE*"] as const;

/** Names the default excludes match that hold no secret and that commands need: kept. */
export const defaultExcludeExceptions = ["GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "SSH_AUTH_SOCK"] as const;

/** What `inherit = "core"` keeps. */
export const coreVariables = ["HOME", "LOGNAME", "PATH", "SHELL", "USER", "USERNAME", "TMPDIR", "TEMP", "TMP", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ"] as const;

/** The credential variables kosong reads: never passed on, whatever the policy. */
export const credentialVariables = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "KIMI_API_KEY", "KOSONG_API_KEY"] as const;

/** Credentials shorter than this are not searched for in other values (they would match too much). */
const minSecretLength = 8;

/**
 * The environment for a child process, from `env` (kosong's own) and
 * `policy`. `secrets` are credentials kosong uses that may not come from a
 * variable (e.g. the config file's `api_key`): no variable holding one is
 * passed on.
 */
export function childEnvironment(env: NodeJS.ProcessEnv, policy: EnvironmentPolicy = defaultEnvironmentPolicy, secrets: readonly (string | null)[] = []): Record<string, string> {
  const matches = (patterns: readonly string[]) => {
    const compiled = patterns.map(globToRegExp);
    return (name: string) => compiled.some((pattern) => pattern.test(name));
  };
  const isCore = matches(coreVariables);
  const isException = matches(defaultExcludeExceptions);
  const matchesDefaults = matches(defaultExcludes);
  const isDefaultExcluded = (name: string) => !policy.ignoreDefaultExcludes && matchesDefaults(name) && !isException(name);
  const isExcluded = matches(policy.exclude);
  const isIncluded = matches(policy.includeOnly);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || policy.inherit === "none" || (policy.inherit === "core" && !isCore(name))) continue;
    if (isDefaultExcluded(name) || isExcluded(name)) continue;
    if (policy.includeOnly.length > 0 && !isIncluded(name)) continue;
    out[name] = value;
  }
  Object.assign(out, policy.set);
  const long = (secret: string | null | undefined): secret is string => !!secret && secret.length >= minSecretLength;
  const known = [...credentialVariables.map((name) => env[name]), ...secrets].filter(long);
  const excludedValues = new Set(Object.entries(env).flatMap(([name, value]) => (isDefaultExcluded(name) && long(value) ? [value] : [])));
  const isCredential = matches(credentialVariables);
  const isSecretValue = (value: string) => !policy.ignoreDefaultExcludes && (hasUrlPassword(value) || excludedValues.has(value));
  for (const [name, value] of Object.entries(out)) {
    if (isCredential(name) || isSecretValue(value) || known.some((secret) => value.includes(secret))) delete out[name];
  }
  return out;
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${body}$`, "i");
}

/**
 * The secret values of `env`: those of every variable {@link childEnvironment}
 * keeps from a command under the default policy (credential names, URLs with
 * a password, copies of either), at least 8 characters long, with `secrets`
 * (credentials kosong uses from elsewhere, the config's `api_key`). What an
 * export must never write.
 */
export function environmentSecrets(env: NodeJS.ProcessEnv, secrets: readonly (string | null)[] = []): string[] {
  const kept = childEnvironment(env, defaultEnvironmentPolicy, secrets);
  const dropped = Object.entries(env).flatMap(([name, value]) => (value !== undefined && !(name in kept) ? [value] : []));
  return [...new Set([...dropped, ...secrets].filter((value): value is string => !!value && value.length >= minSecretLength))].sort((a, b) => b.length - a.length);
}
