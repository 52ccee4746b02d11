/**
 * The resolved settings of one `kosong` run: flags win over `KOSONG_*`
 * environment variables, which win over the config file, which wins over the
 * defaults. Provider-specific environment (`OPENAI_API_KEY`, ...) fills in
 * what none of them set.
 */
import os from "node:os";
import path from "node:path";
import type { ThinkingEffort } from "@kosong/core";
import { defaultMaxFileBytes } from "@kosong/workspace";
import { UsageError } from "../cli-error.js";
import type { ModelPrice } from "../pricing/model-prices.js";
import { defaultSandboxSettings, type SandboxSettings, sandboxModes } from "../sandbox/sandbox-settings.js";
import { defaultEnvironmentPolicy, type EnvironmentPolicy } from "../tools/child-environment.js";
import { parseAge, type RetentionPolicy } from "../sessions/session-retention.js";
import { type ConfigFile, loadConfigFile } from "./config-file.js";
import type { PermissionLists } from "../permissions/permission-rules.js";
import { type HookDefinition, hooksFromTables } from "../hooks/hook-definition.js";
import { type ConfiguredAnswers, configuredAnswers } from "../questions/configured-answers.js";
import {
  type CompactionName,
  compactionNames,
  type FileRestoreMode,
  fileRestoreModes,
  type OutputFormat,
  outputFormats,
  type ProviderName,
  providerNames,
  thinkingEfforts,
} from "./setting-values.js";

/** The flags that shape settings, as the argument parser hands them over (all optional strings or booleans). */
export interface SettingFlags {
  provider?: string;
  model?: string;
  baseUrl?: string;
  maxContextSize?: string;
  thinking?: string;
  compaction?: string;
  compactModel?: string;
  script?: string;
  yolo?: boolean;
  plan?: boolean;
  dmail?: boolean;
  projectContext?: boolean;
  outputFormat?: string;
  mcpConfigFile?: string[];
  store?: string;
  firstByteTimeout?: string;
  idleTimeout?: string;
  shellTimeout?: string;
  /** `--max-time <seconds>`: print mode's limit on the whole run. */
  maxTime?: string;
  /** `--compaction-threshold <share>`: 0.7 or 70%. */
  compactionThreshold?: string;
  /** A mode of `--file-restore <mode>`, or false with `--no-file-restore`. */
  fileRestore?: string | boolean;
  /** `--file-restore-max-size <size>`: bytes, or with a unit (KiB, MiB, GiB). */
  fileRestoreMaxSize?: string;
  /** `--sandbox <mode>`: on, off or auto-allow. */
  sandbox?: string;
  /** `--trust-workspace`: trust the workspace (its hooks, `.mcp.json` servers, permission rules) without asking (this run only). */
  trustWorkspace?: boolean;
  /** `--answer QUESTION=ANSWER` (repeatable): AskUserQuestion's answers in print mode. */
  answer?: string[];
  /** `--default-answer <first|text>`: the answer of the questions `--answer` does not name. */
  defaultAnswer?: string;
}

/** Everything a run needs to build its provider and agent. */
export interface Settings {
  /** `$KOSONG_HOME` (default `~/.kosong`): config and sessions. */
  home: string;
  /** The config file that was read, or null. */
  configPath: string | null;
  provider: ProviderName;
  /** The model name; null means the provider's default. */
  model: string | null;
  baseUrl: string | null;
  /** The API key; never written to session files or logs. */
  apiKey: string | null;
  /** The context window in tokens; null means the default for the provider. */
  maxContextSize: number | null;
  thinking: ThinkingEffort | null;
  compaction: CompactionName | null;
  compactModel: string | null;
  /** The scripts file of `--provider scripted`. */
  script: string | null;
  yolo: boolean;
  /** Start in plan mode (`--plan`): only reading tools work until the user approves a plan. */
  plan: boolean;
  dmail: boolean;
  projectContext: boolean;
  outputFormat: OutputFormat;
  /** How the Shell tool's environment is built (config file `[shell_environment_policy]`). */
  shellEnvironment: EnvironmentPolicy;
  /** Where MCP servers are configured, read in this order (a later server of the same name wins); empty: none. */
  mcpSources: McpSource[];
  /** Milliseconds an MCP server has to start and list its tools (`MCP_TIMEOUT`, Claude Code's variable); null: @kosong/mcp's default (30 s). */
  mcpStartTimeoutMs: number | null;
  /** The config file's permission rules (`permissions`), or null. */
  permissions: PermissionLists | null;
  /** A PostgreSQL connection string: saved sessions keep their conversation there (`--store`, `KOSONG_STORE_URL`); null: in files. */
  store: string | null;
  /** Time limits of the model's calls in ms (null: none; undefined: the provider's default, 2 min and 5 min). */
  llmTimeouts: { firstByteMs?: number | null; idleMs?: number | null };
  /** The time limit of a Shell tool call in ms (null: none; default {@link DEFAULT_SHELL_TIMEOUT_MS}). */
  shellTimeoutMs: number | null;
  /** Print mode's limit on the whole run in ms (null: none; default {@link DEFAULT_PRINT_MAX_TIME_MS}). */
  maxTimeMs: number | null;
  /** Compact at this share of the window (0 < share <= 1); null: the soul's triggers (85 %, or the answer's reserve). */
  compactionThreshold: number | null;
  /**
   * Which files the agent changes are journaled and restored with every
   * revert: none ("off", also `--no-file-restore`), the ones tools declare
   * ("declared"), or those and what Shell commands change ("scan", the default).
   */
  fileRestore: FileRestoreMode;
  /** Files larger than this (bytes) are not journaled, and a revert says so. */
  fileRestoreMaxBytes: number;
  /** The Shell sandbox (`--sandbox`, `KOSONG_SANDBOX`, config `sandbox`): on by default, no network. */
  sandbox: SandboxSettings;
  /** AskUserQuestion's answers in print mode and stream-json (`--answer`, `--default-answer`, config `[questions]`). */
  questionAnswers: ConfiguredAnswers;
  /** The user's command hooks (config file `[[hooks]]`); always run. */
  hooks: HookDefinition[];
  /** Trust the workspace (its hooks, `.mcp.json` servers, permission rules) without asking (`--trust-workspace`, `KOSONG_TRUST_WORKSPACE`). */
  trustWorkspace: boolean;
  /** Whether the model takes images (config `image_input`, `KOSONG_IMAGE_INPUT`); null: by provider and model (see `media/image-input.ts`). */
  imageInput: boolean | null;
  /** FetchURL's hosts fetched without asking (config `fetch_allow_hosts`). */
  fetchAllowHosts: string[];
  /** FetchURL's private addresses it may reach (config `fetch_allow_private`): IPs or CIDR ranges. */
  fetchAllowPrivate: string[];
  /** FetchURL's limits from the config (`fetch_timeout` seconds, `fetch_max_bytes`); unset: the defaults. */
  fetchLimits: { timeoutMs?: number; maxBytes?: number };
  /** Model prices from the config file's `[prices]`, by model name (they win over kosong's table). */
  prices: Record<string, ModelPrice>;
  /** Old sessions removed at start-up (config `session_retention`); null: none. */
  sessionRetention: RetentionPolicy | null;
}

/** A source of MCP servers: `mcpServers` as read from a file (the config file's, `.mcp.json`'s; checked when the servers are read), or a `--mcp-config-file` to read then. */
export type McpSource = { kind: "config"; path: string; mcpServers: unknown } | { kind: "file"; path: string };

/**
 * The default limit of a Shell call: 11 minutes, a minute past the longest
 * `timeout` the model may give the Shell tool itself, so it only cuts a call
 * that the tool's own timeout could not end.
 */
export const DEFAULT_SHELL_TIMEOUT_MS = 660_000;

/**
 * The default limit on a whole print-mode run: 15 minutes, so that a model
 * that stalls (each attempt waits up to the first-byte or idle timeout, and
 * a step is tried 4 times) cannot hold a script for longer.
 */
export const DEFAULT_PRINT_MAX_TIME_MS = 900_000;

/** The default `$KOSONG_HOME`. */
export function defaultHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.KOSONG_HOME ? path.resolve(env.KOSONG_HOME) : path.join(os.homedir(), ".kosong");
}

/** Resolves the settings from flags, environment and the config file of `$KOSONG_HOME`. */
export async function resolveSettings(flags: SettingFlags, env: NodeJS.ProcessEnv = process.env): Promise<Settings> {
  const home = defaultHome(env);
  const { path: configPath, config } = await loadConfigFile(home);
  const pick = <K extends keyof ConfigFile>(flag: string | undefined, envName: string, key: K): string | undefined => picked(flag, envName, key).value;
  /** The value and where it came from (the flag, the variable or the config key), for an error to name what to fix. */
  const picked = <K extends keyof ConfigFile>(flag: string | undefined, envName: string, key: K): { value: string | undefined; from: string } => {
    const flagName = `--${key.replace(/_/g, "-")}`;
    if (flag !== undefined) return { value: flag, from: flagName };
    const fromEnv = nonEmpty(env[envName]);
    if (fromEnv !== undefined) return { value: fromEnv, from: `${envName} (environment)` };
    return { value: config[key] === undefined ? undefined : String(config[key]), from: `${key} in ${configPath ?? "the config file"}` };
  };
  const checked = <K extends keyof ConfigFile, T extends string>(flag: string | undefined, envName: string, key: K, allowed: readonly T[]): T | undefined => {
    const { value, from } = picked(flag, envName, key);
    return oneOf(from, value, allowed);
  };

  const provider = checked(flags.provider, "KOSONG_PROVIDER", "provider", providerNames) ?? inferProvider(env);
  const maxContext = picked(flags.maxContextSize, "KOSONG_MAX_CONTEXT_SIZE", "max_context_size");
  const shellTimeout = seconds("--shell-timeout", pick(flags.shellTimeout, "KOSONG_SHELL_TIMEOUT", "shell_timeout"));
  const maxTime = seconds("--max-time", pick(flags.maxTime, "KOSONG_MAX_TIME", "max_time"));
  return {
    home,
    configPath,
    provider,
    model: pick(flags.model, "KOSONG_MODEL", "model") ?? null,
    baseUrl: pick(flags.baseUrl, "KOSONG_BASE_URL", "base_url") ?? null,
    apiKey: nonEmpty(env.KOSONG_API_KEY) ?? config.api_key ?? null,
    maxContextSize: maxContext.value === undefined ? null : positiveInt(maxContext.from, maxContext.value),
    thinking: checked(flags.thinking, "KOSONG_THINKING", "thinking", thinkingEfforts) ?? null,
    compaction: checked(flags.compaction, "KOSONG_COMPACTION", "compaction", compactionNames) ?? null,
    compactModel: pick(flags.compactModel, "KOSONG_COMPACT_MODEL", "compact_model") ?? null,
    script: flags.script ?? nonEmpty(env.KOSONG_SCRIPT) ?? null,
    yolo: flags.yolo ?? envFlag(env.KOSONG_YOLO) ?? config.yolo ?? false,
    plan: flags.plan ?? false,
    dmail: flags.dmail ?? envFlag(env.KOSONG_DMAIL) ?? config.dmail ?? false,
    projectContext: flags.projectContext === false ? false : (config.project_context ?? true),
    outputFormat: oneOf("--output-format", flags.outputFormat, outputFormats) ?? "text",
    shellEnvironment: environmentPolicy(config.shell_environment_policy),
    mcpSources: [
      ...(config.mcpServers && configPath ? [{ kind: "config" as const, path: configPath, mcpServers: config.mcpServers }] : []),
      ...(flags.mcpConfigFile ?? []).map((file) => ({ kind: "file" as const, path: path.resolve(file) })),
    ],
    mcpStartTimeoutMs: nonEmpty(env.MCP_TIMEOUT) === undefined ? null : milliseconds("MCP_TIMEOUT (environment)", env.MCP_TIMEOUT!),
    permissions: config.permissions ?? null,
    store: flags.store ?? nonEmpty(env.KOSONG_STORE_URL) ?? null,
    llmTimeouts: definedOnly({
      firstByteMs: seconds("--first-byte-timeout", pick(flags.firstByteTimeout, "KOSONG_FIRST_BYTE_TIMEOUT", "first_byte_timeout")),
      idleMs: seconds("--idle-timeout", pick(flags.idleTimeout, "KOSONG_IDLE_TIMEOUT", "idle_timeout")),
    }),
    shellTimeoutMs: shellTimeout === undefined ? DEFAULT_SHELL_TIMEOUT_MS : shellTimeout,
    maxTimeMs: maxTime === undefined ? DEFAULT_PRINT_MAX_TIME_MS : maxTime,
    compactionThreshold: share(picked(flags.compactionThreshold, "KOSONG_COMPACTION_THRESHOLD", "compaction_threshold")),
    fileRestore: flags.fileRestore === false ? "off" : (checked(typeof flags.fileRestore === "string" ? flags.fileRestore : undefined, "KOSONG_FILE_RESTORE", "file_restore", fileRestoreModes) ?? "scan"),
    fileRestoreMaxBytes: byteSize(picked(flags.fileRestoreMaxSize, "KOSONG_FILE_RESTORE_MAX_SIZE", "file_restore_max_size")) ?? defaultMaxFileBytes,
    sandbox: sandboxSettings(config.sandbox, oneOf(flags.sandbox !== undefined ? "--sandbox" : "KOSONG_SANDBOX (environment)", flags.sandbox ?? nonEmpty(env.KOSONG_SANDBOX), sandboxModes)),
    questionAnswers: configuredAnswers(config.questions, flags),
    hooks: hooksFromTables(config.hooks ?? [], configPath ?? "the config file"),
    trustWorkspace: flags.trustWorkspace ?? envFlag(env.KOSONG_TRUST_WORKSPACE) ?? false,
    sessionRetention: retentionPolicy(config.session_retention, `session_retention in ${configPath ?? "the config file"}`),
    imageInput: envFlag(env.KOSONG_IMAGE_INPUT) ?? config.image_input ?? null,
    fetchAllowHosts: config.fetch_allow_hosts ?? [],
    fetchAllowPrivate: config.fetch_allow_private ?? [],
    fetchLimits: definedOnly({ timeoutMs: config.fetch_timeout === undefined ? undefined : Math.round(config.fetch_timeout * 1000), maxBytes: config.fetch_max_bytes }),
    prices: Object.fromEntries(
      Object.entries(config.prices ?? {}).map(([model, p]) => [model, { input: p.input, output: p.output, cachedInput: p.cached_input ?? p.input, ...(p.cache_write === undefined ? {} : { cacheWrite: p.cache_write }) }]),
    ),
  };
}

/** The config's `session_retention` (an age, or a table of `older_than` and `keep`) as a policy; null when not set. */
function retentionPolicy(configured: ConfigFile["session_retention"], from: string): RetentionPolicy | null {
  if (configured === undefined) return null;
  const table = typeof configured === "string" ? { older_than: configured } : configured;
  const policy = { olderThanMs: table.older_than === undefined ? null : parseAge(table.older_than, from), keep: table.keep ?? null };
  return policy.olderThanMs === null && policy.keep === null ? null : policy;
}

function environmentPolicy(configured: ConfigFile["shell_environment_policy"] = {}): EnvironmentPolicy {
  const base = defaultEnvironmentPolicy;
  return {
    inherit: configured.inherit ?? base.inherit,
    ignoreDefaultExcludes: configured.ignore_default_excludes ?? base.ignoreDefaultExcludes,
    exclude: configured.exclude ?? base.exclude,
    includeOnly: configured.include_only ?? base.includeOnly,
    set: configured.set ?? base.set,
  };
}

/** The config file's `sandbox` (a mode, or a table of mode and network), its mode overridden by `mode` when given. */
function sandboxSettings(configured: ConfigFile["sandbox"], mode: SandboxSettings["mode"] | undefined): SandboxSettings {
  const table = typeof configured === "string" ? { mode: configured } : (configured ?? {});
  return { mode: mode ?? table.mode ?? defaultSandboxSettings.mode, network: "network" in table && table.network !== undefined ? table.network : defaultSandboxSettings.network };
}

/** Without a configured provider: Anthropic when only its key is set, Kimi when only its key is set, else OpenAI. */
function inferProvider(env: NodeJS.ProcessEnv): ProviderName {
  if (nonEmpty(env.OPENAI_API_KEY) || nonEmpty(env.OPENAI_BASE_URL)) return "openai";
  if (nonEmpty(env.ANTHROPIC_API_KEY)) return "anthropic";
  if (nonEmpty(env.KIMI_API_KEY)) return "kimi";
  return "openai";
}

function nonEmpty(value: string | undefined): string | undefined {
  return value ? value : undefined;
}

function envFlag(value: string | undefined): boolean | undefined {
  if (!value) return undefined;
  return !["0", "false", "no", "off"].includes(value.toLowerCase());
}

function oneOf<T extends string>(what: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${what}: unknown value "${value}" (one of: ${allowed.join(", ")})`);
}

/** A time limit given in seconds, in ms: `0` means none (null), undefined when not given. */
function seconds(what: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0) throw new UsageError(`${what}: expected a number of seconds (0 for no limit), got "${value}"`);
  return n === 0 ? null : Math.min(Math.round(n * 1000), 2 ** 31 - 1) || 1;
}

/** A share of the window given as 0.7 or 70%, in (0, 1]; null when not given. */
function share({ value, from }: { value: string | undefined; from: string }): number | null {
  if (value === undefined) return null;
  const percent = /^\s*([\d.]+)\s*%\s*$/.exec(value);
  const n = percent ? Number(percent[1]) / 100 : Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n <= 0 || n > 1) throw new UsageError(`${from}: expected a share of the window between 0 and 1 (e.g. 0.7 or 70%), got "${value}"`);
  return n;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** A size given as bytes or with a unit (B, KiB, MiB, GiB; K, M, G alike), in bytes; undefined when not given. */
function byteSize({ value, from }: { value: string | undefined; from: string }): number | undefined {
  if (value === undefined) return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|k|kib|m|mib|g|gib)?\s*$/i.exec(value);
  const bytes = match ? Number(match[1]) * 1024 ** ["b", "k", "m", "g"].indexOf((match[2] ?? "b").charAt(0).toLowerCase()) : Number.NaN;
  if (!Number.isSafeInteger(Math.floor(bytes))) throw new UsageError(`${from}: expected a size in bytes, or with a unit (KiB, MiB, GiB), got "${value}"`);
  return Math.floor(bytes);
}

function milliseconds(what: string, value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`${what}: expected a positive whole number of milliseconds, got "${value}"`);
  return n;
}

function positiveInt(what: string, value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`${what}: expected a positive whole number of tokens, got "${value}"`);
  return n;
}
