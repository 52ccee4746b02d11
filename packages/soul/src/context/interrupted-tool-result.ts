/**
 * The one answer to a tool call that never finished: used by the loop when a
 * turn is aborted while tools run, and by `Context.restore()` for a call
 * whose result a crash lost. Either way the model reads the same error, and
 * every request after it is valid (each call has exactly one result).
 */
import { toolError, toolResultToMessage, type Message, type ToolResult } from "@kosong/core";

/** What the model reads for an interrupted tool call (inside `<system>ERROR: ...</system>`). */
export const TOOL_INTERRUPTED_MESSAGE = "The tool call was interrupted before it returned a result; it may have run partly or not at all.";

/** The error result of an interrupted tool call. */
export function interruptedToolResult(toolCallId: string): ToolResult {
  return { tool_call_id: toolCallId, return_value: toolError({ message: TOOL_INTERRUPTED_MESSAGE, brief: "Interrupted" }) };
}

/** The `tool` message answering an interrupted tool call, as it is appended to the context. */
export function interruptedToolMessage(toolCallId: string): Message {
  return toolResultToMessage(interruptedToolResult(toolCallId));
}
