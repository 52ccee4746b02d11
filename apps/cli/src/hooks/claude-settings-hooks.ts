/**
 * Claude Code's hooks, read from its settings files unchanged:
 * `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type":
 * "command", "command": "...", "timeout": 60}]}]}}`. Other keys of the file
 * are Claude Code's business and ignored; entries kosong cannot run (another
 * `type`, an unknown event, a bad matcher) are skipped with a notice.
 */
import { lazySchema } from "@kosong/core";
import * as z from "zod";
import { maxSettingsSize, type ReadSettingsFile, readSettingsFile, type SettingsFileRead } from "../config/settings-file-reads.js";
import { defaultHookTimeoutSeconds, isValidRegExp, type HookDefinition, hookEvents, type HookEvent, type HookScope } from "./hook-definition.js";

const entrySchema = lazySchema(() =>
  z.object({
    matcher: z.string().optional(),
    hooks: z.array(z.object({ type: z.string(), command: z.string().optional(), timeout: z.number().positive().optional() }).loose()),
  }).loose(),
);

/** What one settings file gave: its hooks, and notices about what was skipped. */
export interface ClaudeHooks {
  hooks: HookDefinition[];
  notices: string[];
}

/** The hooks of the Claude Code settings file at `file` (none when it does not exist), got through `read`. */
export async function readClaudeSettingsHooks(file: string, scope: HookScope, read: ReadSettingsFile = readSettingsFile): Promise<ClaudeHooks> {
  return settingsFileHooks(file, scope, await read(file));
}

/** The hooks of the Claude Code settings file `file` as read (`got`); none when it is missing or was found outside the folder it was confined to (the caller says so). */
export function settingsFileHooks(file: string, scope: HookScope, got: SettingsFileRead): ClaudeHooks {
  if (got.kind === "missing" || got.kind === "outside") return { hooks: [], notices: [] };
  if (got.kind === "unreadable") return { hooks: [], notices: [`cannot read ${file}: ${got.message}`] };
  if (got.kind === "too-large") return { hooks: [], notices: [`${file} is larger than ${maxSettingsSize}: its hooks are not read`] };
  const json = got.json();
  if (!json.ok) return { hooks: [], notices: [`${file} is not valid JSON, its hooks are not read: ${json.message}`] };
  const raw = json.value;
  const events = typeof raw === "object" && raw !== null ? (raw as { hooks?: unknown }).hooks : undefined;
  if (events === undefined) return { hooks: [], notices: [] };
  if (typeof events !== "object" || events === null || Array.isArray(events)) return { hooks: [], notices: [`${file}: "hooks" is not an object; its hooks are not read`] };
  const hooks: HookDefinition[] = [];
  const notices: string[] = [];
  for (const [event, entries] of Object.entries(events)) {
    if (!(hookEvents as readonly string[]).includes(event)) {
      notices.push(`${file}: hook event "${event}" is not one kosong fires; skipped`);
      continue;
    }
    const parsed = z.array(entrySchema()).safeParse(entries);
    if (!parsed.success) {
      notices.push(`${file}: the ${event} hooks are not in Claude Code's shape; skipped`);
      continue;
    }
    for (const entry of parsed.data) {
      const matcher = entry.matcher ?? null;
      if (matcher !== null && !isValidRegExp(matcher)) {
        notices.push(`${file}: ${event} matcher ${JSON.stringify(matcher)} is not a valid regular expression; skipped`);
        continue;
      }
      for (const hook of entry.hooks) {
        if (hook.type !== "command" || !hook.command?.trim()) {
          notices.push(`${file}: a ${event} hook of type "${hook.type}" is not a command; skipped`);
          continue;
        }
        const timeoutSeconds = Math.min(hook.timeout ?? defaultHookTimeoutSeconds, 600);
        hooks.push({ event: event as HookEvent, command: hook.command, matcher, matchWhole: true, timeoutSeconds, scope, source: file });
      }
    }
  }
  return { hooks, notices };
}

