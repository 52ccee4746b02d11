/**
 * The CLI's command hooks, built on the soul's typed hooks: for each event,
 * the matching hook commands run at once (in parallel), each with the event
 * as JSON on stdin (Claude Code's and kimi-cli's field names: `session_id`,
 * `cwd`, `hook_event_name`, `tool_name`, `tool_input`, ...), and their
 * replies merge into the soul's outcome.
 */
import path from "node:path";
import type { HostHooks, PreToolUseInput, SoulHooks } from "@kosong/soul/hooks";
import { type HookDefinition, type HookEvent, matchesTarget } from "./hook-definition.js";
import { type HookReply, hookReply, mergeReplies } from "./hook-reply.js";
import { type HookCommandRunner, runHookCommand } from "./run-hook-command.js";

/** Other names of kosong's tools, so Claude Code's (`Bash`, `Write`) and kimi-cli's (`StrReplaceFile`) matchers match them. */
export const toolAliases: Readonly<Record<string, readonly string[]>> = {
  Shell: ["Bash"],
  ReadFile: ["Read"],
  WriteFile: ["Write"],
  EditFile: ["Edit", "MultiEdit", "StrReplaceFile"],
  ListDir: ["LS"],
};

/** What every event's JSON carries. */
export interface HookSessionInfo {
  sessionId: string;
  /** The conversation file. */
  transcriptPath: string;
  cwd: string;
}

/** The soul's hooks and the host's, running `definitions` through `runner`. */
export function commandHooks(definitions: readonly HookDefinition[], runner: HookCommandRunner, info: HookSessionInfo): { soul: SoulHooks; host: HostHooks } {
  const fire = async (event: HookEvent, targets: readonly string[], fields: Record<string, unknown>): Promise<HookReply> => {
    const matching = definitions.filter((d) => d.event === event && matchesTarget(d, targets));
    if (matching.length === 0) return mergeReplies([]);
    const input = JSON.stringify({ session_id: info.sessionId, transcript_path: info.transcriptPath, cwd: info.cwd, hook_event_name: event, ...fields });
    const replies = await Promise.all(matching.map(async (d) => hookReply(d, await runHookCommand(runner, d.command, input, d.timeoutSeconds * 1000))));
    return mergeReplies(replies);
  };
  const context = (reply: HookReply) => (reply.context.length > 0 ? reply.context.join("\n") : undefined);
  // After a call the tool has run: a block cannot undo it, so its reason is context for the model like the rest.
  const afterTool = (reply: HookReply) => ({ additionalContext: [reply.block, ...reply.context].filter(Boolean).join("\n") || undefined, warnings: reply.warnings });
  const tool = (input: PreToolUseInput) => ({
    targets: [input.toolName, ...(toolAliases[input.toolName] ?? [])],
    fields: { tool_name: input.toolName, tool_input: withFilePath(input.toolInput, info.cwd), tool_use_id: input.toolCallId, tool_call_id: input.toolCallId },
  });
  const soul: SoulHooks = {
    async preToolUse(input) {
      const { targets, fields } = tool(input);
      const reply = await fire("PreToolUse", targets, fields);
      const decision = reply.block !== null ? "deny" : reply.allow ? "allow" : undefined;
      return { decision, reason: reply.block ?? undefined, updatedInput: reply.updatedInput, additionalContext: context(reply), warnings: reply.warnings };
    },
    async postToolUse(input) {
      const { targets, fields } = tool(input);
      const output = typeof input.output.output === "string" ? input.output.output : input.output.output.map((p) => (p.type === "text" ? p.text : `[${p.type}]`)).join("");
      const reply = await fire("PostToolUse", targets, { ...fields, tool_response: { output, message: input.output.message }, tool_output: output });
      return afterTool(reply);
    },
    async postToolUseFailure(input) {
      const { targets, fields } = tool(input);
      const reply = await fire("PostToolUseFailure", targets, { ...fields, error: input.error });
      return afterTool(reply);
    },
    async userPromptSubmit({ prompt }) {
      const reply = await fire("UserPromptSubmit", [], { prompt });
      return { block: reply.block ?? undefined, additionalContext: context(reply), warnings: reply.warnings };
    },
    async stop({ stopReason, stopHookActive }) {
      const reply = await fire("Stop", [], { stop_hook_active: stopHookActive, stop_reason: stopReason });
      return { block: reply.block ?? undefined, warnings: reply.warnings };
    },
    async preCompact(input) {
      const fields = { trigger: input.trigger, strategy: input.strategy, token_count: input.tokensBefore, tokens_before: input.tokensBefore, message_count: input.messages, custom_instructions: input.instruction ?? "" };
      return { warnings: (await fire("PreCompact", compactTargets(input.trigger), fields)).warnings };
    },
    async postCompact(input) {
      const fields = {
        trigger: input.trigger,
        strategy: input.strategy,
        tokens_before: input.tokensBefore,
        tokens_after: input.tokensAfter,
        estimated_token_count: input.tokensAfter,
        message_count: input.messages,
        message_count_after: input.messagesAfter,
        dropped_ranges: input.dropped,
        rotation: input.rotation,
      };
      return { warnings: (await fire("PostCompact", compactTargets(input.trigger), fields)).warnings };
    },
    async notification({ kind, message }) {
      const type = kind === "approval_needed" ? "permission_prompt" : "turn_done";
      return { warnings: (await fire("Notification", [type], { notification_type: type, message, title: "kosong" })).warnings };
    },
  };
  const host: HostHooks = {
    async sessionStart({ source }) {
      const reply = await fire("SessionStart", [source], { source });
      return { additionalContext: context(reply), warnings: reply.warnings };
    },
    async sessionEnd({ reason }) {
      return { warnings: (await fire("SessionEnd", [reason], { reason })).warnings };
    },
    async subagentStart({ agentName, text }) {
      return { warnings: (await fire("SubagentStart", [agentName], { agent_name: agentName, prompt: text })).warnings };
    },
    async subagentStop({ agentName, text }) {
      return { warnings: (await fire("SubagentStop", [agentName], { agent_name: agentName, response: text })).warnings };
    },
  };
  return { soul: onlyDefined(soul, definitions), host: onlyDefined(host, definitions) };
}

/** The hook event each callback fires. */
const callbackEvents: Record<keyof SoulHooks | keyof HostHooks, HookEvent> = {
  preToolUse: "PreToolUse",
  postToolUse: "PostToolUse",
  postToolUseFailure: "PostToolUseFailure",
  userPromptSubmit: "UserPromptSubmit",
  stop: "Stop",
  preCompact: "PreCompact",
  postCompact: "PostCompact",
  notification: "Notification",
  sessionStart: "SessionStart",
  sessionEnd: "SessionEnd",
  subagentStart: "SubagentStart",
  subagentStop: "SubagentStop",
};

/** `hooks` without the callbacks of events no definition is for (the soul then skips them entirely). */
function onlyDefined<H extends SoulHooks | HostHooks>(hooks: H, definitions: readonly HookDefinition[]): H {
  const events = new Set(definitions.map((d) => d.event));
  return Object.fromEntries(Object.entries(hooks).filter(([key]) => events.has(callbackEvents[key as keyof typeof callbackEvents]))) as H;
}

/** An overflow compaction is an automatic one to matchers written for Claude Code and kimi-cli (`auto`, `manual`). */
function compactTargets(trigger: string): string[] {
  return trigger === "overflow" ? ["overflow", "auto"] : [trigger];
}

/** Tool input with Claude Code's `file_path` (absolute) beside kosong's `path`, so Claude's file hooks read it. */
function withFilePath(input: unknown, cwd: string): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return input;
  const record = input as Record<string, unknown>;
  if (typeof record.path !== "string" || "file_path" in record) return input;
  return { ...record, file_path: path.resolve(cwd, record.path) };
}
