/**
 * The agent's toolset with the tool hooks around each call: PreToolUse
 * before the tool runs (and before it asks for approval), PostToolUse or
 * PostToolUseFailure after. A denial is the call's error result, with the
 * hook's reason for the model; additional context joins the result's
 * message. Cancelled and user-rejected calls get no post hook (their
 * results stay as they are, for the loop to recognise).
 */
import { ToolCancelledError, toolError, type ToolCall, type ToolHandleOptions, type ToolResult, type ToolReturnValue, type Toolset } from "@kosong/core";
import type { ToolApproval } from "../approval/approval.js";
import { ToolRejectedError } from "../approval/tool-rejected-error.js";
import type { Emit } from "../loop/runtime.js";
import { callHook } from "./call-hook.js";
import type { PreToolUseInput, SoulHooks } from "./soul-hooks.js";

const approveWithoutAsking: ToolApproval = { request: () => Promise.resolve({ approved: true }) };

/** `toolset` with `hooks`' tool hooks around each call; `toolset` itself when there are none. */
export function hookedToolset(toolset: Toolset, hooks: SoulHooks, emit: Emit): Toolset {
  if (!hooks.preToolUse && !hooks.postToolUse && !hooks.postToolUseFailure) return toolset;
  return {
    get tools() {
      return toolset.tools;
    },
    async handle(call: ToolCall, options: ToolHandleOptions = {}): Promise<ToolResult> {
      const input: PreToolUseInput = { toolName: call.function.name, toolInput: parseArguments(call.function.arguments), toolCallId: call.id };
      const pre = await callHook("PreToolUse", hooks.preToolUse, input, emit);
      if (pre?.decision === "deny") {
        const reason = pre.reason?.trim() || "no reason given";
        return { tool_call_id: call.id, return_value: toolError({ message: `A PreToolUse hook blocked this call: ${reason}`, brief: "Blocked by a hook" }) };
      }
      const ran = pre?.updatedInput === undefined ? call : { ...call, function: { ...call.function, arguments: JSON.stringify(pre.updatedInput) } };
      const ranInput = ran === call ? input : { ...input, toolInput: pre?.updatedInput };
      const context = pre?.decision === "allow" ? { ...options.context, approval: approveWithoutAsking } : options.context;
      const result = await toolset.handle(ran, { ...options, context });
      const value = result.return_value;
      if (ToolCancelledError.isInstance(value) || ToolRejectedError.isInstance(value)) return result;
      const post = value.is_error
        ? await callHook("PostToolUseFailure", hooks.postToolUseFailure, { ...ranInput, error: value.message }, emit)
        : await callHook("PostToolUse", hooks.postToolUse, { ...ranInput, output: value }, emit);
      const extra = [pre?.additionalContext, post?.additionalContext].filter((text): text is string => !!text?.trim());
      return extra.length === 0 ? result : { ...result, return_value: withContext(value, extra) };
    },
  };
}

function withContext(value: ToolReturnValue, extra: string[]): ToolReturnValue {
  const note = extra.map((text) => `Hook context: ${text.trim()}`).join("\n");
  // A copy keeps its class (a ToolError stays one), so the result renders as before.
  const copy = Object.assign(Object.create(Object.getPrototypeOf(value) as object) as ToolReturnValue, value);
  copy.message = value.message === "" ? note : `${value.message}\n${note}`;
  return copy;
}

function parseArguments(text: string | null): unknown {
  if (text === null) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
