/**
 * The optional config file, `$KOSONG_HOME/config.toml` or `config.json`:
 * defaults for the flags, validated with zod so that a wrong key or value is
 * an error naming it (exit code 2) rather than silently ignored. The file
 * is UTF-8 (a byte order mark is allowed); other bytes are an error too.
 */
import { isUtf8 } from "node:buffer";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { lazySchema } from "@kosong/core";
import * as z from "zod";
import { UsageError } from "../cli-error.js";
import { hookTableSchema } from "../hooks/hook-definition.js";
import { hostPattern, sandboxModes } from "../sandbox/sandbox-settings.js";
import { AddressPolicy } from "../web/address-policy.js";
import { compactionNames, fileRestoreModes, providerNames, thinkingEfforts } from "./setting-values.js";

/** The config file's schema: every key optional, no other key allowed. */
export const configFileSchema = lazySchema(() =>
  z.strictObject({
    provider: z.enum(providerNames).optional(),
    model: z.string().min(1).optional(),
    base_url: z.url().optional(),
    api_key: z.string().min(1).optional(),
    max_context_size: z.int().positive().optional(),
    thinking: z.enum(thinkingEfforts).optional(),
    compaction: z.enum(compactionNames).optional(),
    compact_model: z.string().min(1).optional(),
    yolo: z.boolean().optional(),
    dmail: z.boolean().optional(),
    project_context: z.boolean().optional(),
    /** Whether the model takes images (`@image.png` mentions, ReadMediaFile); default: by provider and model. */
    image_input: z.boolean().optional(),
    /** FetchURL: hosts fetched without asking (`example.com`, `*.example.com`, `host:port`). */
    fetch_allow_hosts: z.array(z.string().min(1)).optional(),
    /** FetchURL: loopback, link-local and private addresses it may reach (IPs or CIDR ranges, e.g. `127.0.0.1`, `10.0.0.0/8`); default none. */
    fetch_allow_private: z.array(z.string().refine(AddressPolicy.isValidEntry, "an IP address or a CIDR range")).optional(),
    /** FetchURL: seconds a fetch may take, redirects included (default 30). */
    fetch_timeout: z.number().positive().optional(),
    /** FetchURL: bytes of a body kept (default 2 MiB); the rest is cut. */
    fetch_max_bytes: z.int().positive().optional(),
    /** How the Shell tool's environment is built (see `tools/child-environment.ts`). */
    shell_environment_policy: z
      .strictObject({
        inherit: z.enum(["all", "core", "none"]).optional(),
        ignore_default_excludes: z.boolean().optional(),
        exclude: z.array(z.string().min(1)).optional(),
        include_only: z.array(z.string().min(1)).optional(),
        set: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a variable name (letters, digits, _)"), z.string().refine((value) => !value.includes("\0"), "no NUL character")).optional(),
      })
      .optional(),
    /**
     * The Shell sandbox: a mode ("on", default where available; "auto-allow": a
     * sandboxed command runs without asking; "off"), or a table of `mode` and
     * `network` (false: none, default; true: the machine's; a list of hosts reached
     * through kosong's proxy). See `sandbox/sandbox-settings.ts`.
     */
    sandbox: z
      .union([
        z.enum(sandboxModes),
        z.strictObject({
          mode: z.enum(sandboxModes).optional(),
          network: z.union([z.boolean(), z.array(z.string().regex(hostPattern, "a host name or IP address, `*.` allowed in front, `:port` allowed after"))]).optional(),
        }),
      ])
      .optional(),
    /** MCP servers in Claude's and kimi-cli's format; @kosong/mcp checks each server when they are started. */
    mcpServers: z.record(z.string(), z.unknown()).optional(),
    /** Permission rules (Claude Code's shape): `allow`, `ask`, `deny` lists of `Tool` or `Tool(pattern)`. */
    permissions: z.strictObject({ allow: z.array(z.string()).optional(), ask: z.array(z.string()).optional(), deny: z.array(z.string()).optional() }).optional(),
    /** Seconds until a model's response starts (0: no limit; default 120). */
    first_byte_timeout: z.number().nonnegative().optional(),
    /** Seconds a model's response stream may stay silent (0: no limit; default 300). */
    idle_timeout: z.number().nonnegative().optional(),
    /** Seconds a Shell tool call may run (0: no limit; default 660). */
    shell_timeout: z.number().nonnegative().optional(),
    max_time: z.number().nonnegative().optional(),
    /** Compact when the context reaches this share of the window: 0.7 or "70%" (default: 0.85, or earlier when the reserve for the answer runs out). */
    compaction_threshold: z.union([z.number(), z.string()]).optional(),
    /**
     * Model prices in USD per million tokens, by model name (`[prices."my-model"]`):
     * `input` and `output`, and optionally `cached_input` and `cache_write`
     * (default: `input`). They win over kosong's own table.
     */
    prices: z
      .record(
        z.string().min(1),
        z.strictObject({
          input: z.number().nonnegative(),
          output: z.number().nonnegative(),
          cached_input: z.number().nonnegative().optional(),
          cache_write: z.number().nonnegative().optional(),
        }),
      )
      .optional(),
    /**
     * AskUserQuestion's answers where nobody can answer live (print mode,
     * stream-json): `answers` by question text or header, and `default` for
     * the other questions ("first": the first option; other text: that answer).
     */
    questions: z.strictObject({ answers: z.record(z.string().min(1), z.string().min(1)).optional(), default: z.string().min(1).optional() }).optional(),
    /** Command hooks in kimi-cli's shape (`[[hooks]]`: event, command, matcher, timeout); see `hooks/`. */
    hooks: z.array(hookTableSchema()).optional(),
    /** Which files the agent changes a revert restores: "off", "declared" (WriteFile, EditFile) or "scan" (and what Shell commands change; default). */
    file_restore: z.enum(fileRestoreModes).optional(),
    /** Files larger than this are not journaled: bytes, or a string with a unit ("512 KiB", "10 MiB"); default 10 MiB. */
    file_restore_max_size: z.union([z.int().nonnegative(), z.string().min(1)]).optional(),
    /**
     * Removes old sessions at start-up as `kosong sessions prune` does: an age ("30d"),
     * or a table of `older_than` (an age) and `keep` (the newest sessions kept whatever their age).
     */
    session_retention: z.union([z.string().min(1), z.strictObject({ older_than: z.string().min(1).optional(), keep: z.int().nonnegative().optional() })]).optional(),
  }),
);

/** The settings a config file holds. */
export type ConfigFile = z.infer<ReturnType<typeof configFileSchema>>;

/** Where the config file was found (null: none) and what it holds. */
export interface LoadedConfigFile {
  path: string | null;
  config: ConfigFile;
}

/**
 * Reads `config.toml` (else `config.json`) in `home`. A missing file is an
 * empty config; a file that does not parse or has a wrong key or value is a
 * {@link UsageError} naming the file and the key.
 */
export async function loadConfigFile(home: string): Promise<LoadedConfigFile> {
  for (const name of ["config.toml", "config.json"]) {
    const file = path.join(home, name);
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`, { cause: error });
    }
    return { path: file, config: await parseConfigText(file, decodeUtf8(file, bytes)) };
  }
  return { path: null, config: {} };
}

/**
 * The file's text: UTF-8, a byte order mark at its start dropped. Bytes that
 * are not UTF-8 are a {@link UsageError} naming the byte offset of the first.
 */
function decodeUtf8(file: string, bytes: Buffer): string {
  const text = bytes.toString("utf8");
  if (!isUtf8(bytes)) {
    // Decoding replaces each bad sequence with U+FFFD: re-encoded, the text first differs from the file there.
    const again = Buffer.from(text, "utf8");
    let offset = 0;
    while (offset < bytes.length && bytes[offset] === again[offset]) offset++;
    throw new UsageError(`${file} is not valid UTF-8: byte ${offset} (0x${bytes[offset]!.toString(16).padStart(2, "0")}) starts no UTF-8 character. Save the file as UTF-8.`);
  }
  return text.startsWith("\ufeff") ? text.slice(1) : text;
}

async function parseConfigText(file: string, text: string): Promise<ConfigFile> {
  let raw: unknown;
  try {
    raw = file.endsWith(".toml") ? (await import("smol-toml")).parse(text) : JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file} is not valid ${file.endsWith(".toml") ? "TOML" : "JSON"}: ${(error as Error).message}`, { cause: error });
  }
  const parsed = configFileSchema().safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `  - ${describeIssue(issue)}`);
  const keys = Object.keys(configFileSchema().shape).join(", ");
  throw new UsageError(`${file} has invalid settings:\n${problems.join("\n")}\nKnown keys: ${keys}.`);
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") {
    return `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((key) => `\`${key}\``).join(", ")}`;
  }
  const key = issue.path.map(String).join(".");
  return `\`${key}\`: ${issue.message}`;
}
