/**
 * The one answer to a tool call that never finished: used by the loop when a
 * turn is aborted while tools run, and by `Context.restore()` for a call
 * whose result a crash lost. Either way the model reads the same error, and
 * every request after it is valid (each call has exactly one result).
 */
import { toolError, toolResultToMessage, type Message, type ToolResult } from "@kosong/core";
import type { CommandToolCall, InterruptedCommandReport } from "@kosong/workspace";

/** What the model reads for an interrupted tool call (inside `<system>ERROR: ...</system>`). */
export const TOOL_INTERRUPTED_MESSAGE = "The tool call was interrupted before it returned a result; it may have run partly or not at all.";

/**
 * What the model reads for a call the user interrupted while it waited for
 * approval: it never ran, so nothing of it happened.
 */
export const TOOL_INTERRUPTED_BEFORE_RUN_MESSAGE = "The user interrupted the tool call while it waited for approval; it did not run.";

/**
 * The error result of an interrupted tool call. `ran: false` when it is
 * known the call never ran (interrupted at its approval prompt).
 */
export function interruptedToolResult(toolCallId: string, ran: boolean = true): ToolResult {
  const message = ran ? TOOL_INTERRUPTED_MESSAGE : TOOL_INTERRUPTED_BEFORE_RUN_MESSAGE;
  return { tool_call_id: toolCallId, return_value: toolError({ message, brief: "Interrupted" }) };
}

/** The `tool` message answering an interrupted tool call, as it is appended to the context. */
export function interruptedToolMessage(toolCallId: string): Message {
  return toolResultToMessage(interruptedToolResult(toolCallId));
}

/**
 * The call a crash cut while its command ran (the step that called it was
 * never written), and its answer: the call as the model made it, then an
 * error saying it was interrupted and which files it created or changed (as
 * the file journal found them on reopening). Paths are the workspace's, not
 * instructions.
 */
export function cutCommandMessages(call: CommandToolCall, report: InterruptedCommandReport): Message[] {
  const list = (paths: readonly string[]) => (paths.length === 0 ? "none" : paths.join(", "));
  const message = [
    "The command was interrupted: kosong stopped (crashed or was killed) while it ran, so it may have run partly.",
    `Files it created: ${list(report.created)}.`,
    `Files it changed or deleted: ${list(report.notRestorable)}.`,
    ...(report.notice === null ? [] : [`Note: ${report.notice}.`]),
  ].join(" ");
  const assistant: Message = { role: "assistant", content: [], tool_calls: [{ type: "function", id: call.id, function: { name: call.name, arguments: call.arguments } }] };
  return [assistant, toolResultToMessage({ tool_call_id: call.id, return_value: toolError({ message, brief: "Interrupted" }) })];
}
