/**
 * A command hook as kosong runs it, whichever file defined it: kimi-cli's
 * `[[hooks]]` tables in config.toml, or Claude Code's `hooks` object in
 * `.claude/settings.json`. The events are Claude Code's and kimi-cli's names.
 */
import { lazySchema } from "@kosong/core";
import * as z from "zod";

/** The hook events, by their Claude Code and kimi-cli names. */
export const hookEvents = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "Stop",
  "SessionStart",
  "SessionEnd",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "Notification",
] as const;

/** A hook event name. */
export type HookEvent = (typeof hookEvents)[number];

/** Where a hook was defined: the user's own files (always run) or the workspace's (run once the workspace is trusted). */
export type HookScope = "user" | "workspace";

/** One command hook. */
export interface HookDefinition {
  event: HookEvent;
  /** The shell command (run with `bash -c`). */
  command: string;
  /** A regular expression on the event's target (the tool name, the trigger, ...); null matches everything. */
  matcher: string | null;
  /** How the matcher matches: anywhere in the target (kimi-cli), or the whole target (Claude Code). */
  matchWhole: boolean;
  /** Seconds the command may run (default 30, as kimi-cli; Claude Code files give their own). */
  timeoutSeconds: number;
  scope: HookScope;
  /** The file it came from (for notices and the trust prompt). */
  source: string;
}

/** The default timeout of a hook command, in seconds (kimi-cli's). */
export const defaultHookTimeoutSeconds = 30;

/** True when `text` compiles as a regular expression. */
export function isValidRegExp(text: string): boolean {
  try {
    new RegExp(text);
    return true;
  } catch {
    return false;
  }
}

/** A `[[hooks]]` table of config.toml (kimi-cli's shape): exactly these fields. */
export const hookTableSchema = lazySchema(() =>
  z.strictObject({
    event: z.enum(hookEvents),
    command: z.string().trim().min(1),
    // A matcher must compile: an invalid one is an error naming it.
    matcher: z.string().refine(isValidRegExp, "a valid regular expression").optional(),
    timeout: z.int().min(1).max(600).optional(),
  }),
);

/** A `[[hooks]]` table as read. */
export type HookTable = z.infer<ReturnType<typeof hookTableSchema>>;

/** The definitions of config.toml's `[[hooks]]` tables (user hooks). */
export function hooksFromTables(tables: readonly HookTable[], source: string): HookDefinition[] {
  return tables.map((t) => ({ event: t.event, command: t.command, matcher: t.matcher || null, matchWhole: false, timeoutSeconds: t.timeout ?? defaultHookTimeoutSeconds, scope: "user", source }));
}

/** True when `definition`'s matcher matches one of `targets` (a tool's kosong name and its other names). */
export function matchesTarget(definition: HookDefinition, targets: readonly string[]): boolean {
  const { matcher } = definition;
  if (matcher === null || matcher === "" || matcher === "*") return true;
  const pattern = new RegExp(definition.matchWhole ? `^(?:${matcher})$` : matcher);
  return targets.some((target) => pattern.test(target));
}
