/**
 * The optional config file, `$KOSONG_HOME/config.toml` or `config.json`:
 * defaults for the flags, validated with zod so that a wrong key or value is
 * an error naming it (exit code 2) rather than silently ignored.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { UsageError } from "../cli-error.js";
import { compactionNames, providerNames, thinkingEfforts } from "./setting-values.js";

/** The config file's schema: every key optional, no other key allowed. */
export const configFileSchema = z.strictObject({
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
  /** Seconds until a model's response starts (0: no limit; default 120). */
  first_byte_timeout: z.number().nonnegative().optional(),
  /** Seconds a model's response stream may stay silent (0: no limit; default 300). */
  idle_timeout: z.number().nonnegative().optional(),
  /** Seconds a Shell tool call may run (0: no limit; default 660). */
  shell_timeout: z.number().nonnegative().optional(),
});

/** The settings a config file holds. */
export type ConfigFile = z.infer<typeof configFileSchema>;

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
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`, { cause: error });
    }
    return { path: file, config: await parseConfigText(file, text) };
  }
  return { path: null, config: {} };
}

async function parseConfigText(file: string, text: string): Promise<ConfigFile> {
  let raw: unknown;
  try {
    raw = file.endsWith(".toml") ? (await import("smol-toml")).parse(text) : JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file} is not valid ${file.endsWith(".toml") ? "TOML" : "JSON"}: ${(error as Error).message}`, { cause: error });
  }
  const parsed = configFileSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `  - ${describeIssue(issue)}`);
  const keys = Object.keys(configFileSchema.shape).join(", ");
  throw new UsageError(`${file} has invalid settings:\n${problems.join("\n")}\nKnown keys: ${keys}.`);
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") {
    return `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((key) => `\`${key}\``).join(", ")}`;
  }
  const key = issue.path.map(String).join(".");
  return `\`${key}\`: ${issue.message}`;
}
