/**
 * What a hook command's exit code and output mean, as Claude Code and
 * kimi-cli define them: exit 0 goes on (JSON on stdout may decide or add
 * context); exit 2 blocks, with stderr as the reason (for events that can
 * block; for the others stderr is shown to the user); any other code, a
 * timeout or a failure to start warns and goes on (fail open). The output is
 * hostile: control characters are removed from what the model reads and
 * shown visibly to the user, long text is cut, JSON that does not parse or
 * has the wrong shape is a warning and nothing more.
 */
import { lazySchema } from "@kosong/core";
import * as z from "zod";
import { capOutput } from "../tools/cap-output.js";
import { visibleControls } from "../render/visible-controls.js";
import type { HookDefinition, HookEvent } from "./hook-definition.js";
import type { HookRun } from "./run-hook-command.js";

/** What one or more hooks of an event said. */
export interface HookReply {
  /** The reason to block (deny the tool call, block the prompt, keep the turn going), null when none blocked. */
  block: string | null;
  /** A hook allowed the tool call outright (`permissionDecision: "allow"`). */
  allow: boolean;
  /** Arguments to run the tool with instead. */
  updatedInput?: Record<string, unknown>;
  /** Text for the model. */
  context: string[];
  /** Notices for the user. */
  warnings: string[];
}

/** Events where exit code 2 blocks (the others show stderr to the user). */
const blockingEvents: ReadonlySet<HookEvent> = new Set(["PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop"]);

/** Events whose plain (non-JSON) stdout is context for the model, as in Claude Code. */
const stdoutContextEvents: ReadonlySet<HookEvent> = new Set(["UserPromptSubmit", "SessionStart"]);

/** At most this many characters of a hook's text reach the model. */
const maxModelText = 10_000;

const replySchema = lazySchema(() =>
  z
    .object({
      continue: z.boolean().optional(),
      stopReason: z.string().optional(),
      systemMessage: z.string().optional(),
      decision: z.string().optional(),
      reason: z.string().optional(),
      hookSpecificOutput: z
        .object({
          permissionDecision: z.string().optional(),
          permissionDecisionReason: z.string().optional(),
          updatedInput: z.record(z.string(), z.unknown()).optional(),
          additionalContext: z.string().optional(),
          message: z.string().optional(),
        })
        .loose()
        .optional(),
    })
    .loose(),
);

/** What `run` of `hook` means. */
export function hookReply(hook: HookDefinition, run: HookRun): HookReply {
  const reply: HookReply = { block: null, allow: false, context: [], warnings: [] };
  const name = `${hook.event} hook \`${forUser(hook.command, 80)}\``;
  if (run.kind === "timed_out") return { ...reply, warnings: [`${name} timed out after ${hook.timeoutSeconds} s and was stopped; going on without it`] };
  if (run.kind === "failed") return { ...reply, warnings: [`${name} could not run (${forUser(run.error, 200)}); going on without it`] };
  if (run.truncated) reply.warnings.push(`${name} printed more than 64 KiB; the rest was dropped`);
  const stderr = run.stderr.trim();
  if (run.exitCode === 2) {
    if (blockingEvents.has(hook.event)) reply.block = forModel(stderr) || "blocked by a hook (no reason given)";
    else reply.warnings.push(`${name} exited with code 2${stderr ? `: ${forUser(stderr, 300)}` : ""}`);
    return reply;
  }
  if (run.exitCode !== 0) {
    const how = run.exitCode === null ? `was killed by ${run.signal}` : `exited with code ${run.exitCode}`;
    reply.warnings.push(`${name} ${how}; going on${stderr ? `: ${forUser(stderr, 300)}` : ""}`);
    return reply;
  }
  const stdout = run.stdout.trim();
  if (!stdout.startsWith("{")) {
    if (stdout && stdoutContextEvents.has(hook.event)) reply.context.push(forModel(stdout));
    return reply;
  }
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    reply.warnings.push(`${name} printed output that is not valid JSON; ignored`);
    return reply;
  }
  const parsed = replySchema().safeParse(json);
  if (!parsed.success) {
    reply.warnings.push(`${name} printed JSON that is not a hook reply; ignored`);
    return reply;
  }
  applyJson(reply, parsed.data, hook.event);
  return reply;
}

function applyJson(reply: HookReply, json: z.infer<ReturnType<typeof replySchema>>, event: HookEvent): void {
  const specific = json.hookSpecificOutput;
  if (json.systemMessage?.trim()) reply.warnings.push(forUser(json.systemMessage, 300));
  const decision = specific?.permissionDecision ?? (json.decision === "approve" ? "allow" : json.decision === "block" ? "deny" : undefined);
  const reason = specific?.permissionDecisionReason ?? json.reason ?? "";
  if (decision === "deny" || (json.continue === false && blockingEvents.has(event))) reply.block = forModel(reason || json.stopReason || "") || "blocked by a hook (no reason given)";
  else if (decision === "allow" && event === "PreToolUse") reply.allow = true;
  if (specific?.updatedInput && event === "PreToolUse") reply.updatedInput = specific.updatedInput;
  for (const text of [specific?.additionalContext, specific?.message]) if (text?.trim()) reply.context.push(forModel(text));
}

/** Several hooks' replies as one: any block blocks (reasons joined), allow only when none blocks. */
export function mergeReplies(replies: readonly HookReply[]): HookReply {
  const blocks = replies.flatMap((r) => (r.block === null ? [] : [r.block]));
  const updated = replies.findLast((r) => r.updatedInput !== undefined)?.updatedInput;
  return {
    block: blocks.length > 0 ? blocks.join("\n") : null,
    allow: blocks.length === 0 && replies.some((r) => r.allow),
    ...(updated !== undefined && { updatedInput: updated }),
    context: replies.flatMap((r) => r.context),
    warnings: replies.flatMap((r) => r.warnings),
  };
}

/** Text for the model: control characters other than newline and tab removed, capped. */
function forModel(text: string): string {
  // eslint-disable-next-line no-control-regex
  return capOutput(text.replace(/\r\n/g, "\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, ""), maxModelText).trim();
}

/** Text for the user: one line, controls shown, cut to `max` characters. */
function forUser(text: string, max: number): string {
  const line = visibleControls(text.trim(), { oneLine: true });
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
