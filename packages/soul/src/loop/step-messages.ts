/**
 * The messages one step adds to the context: the assistant message and one
 * result per tool call, appended as one batch.
 */
import { ToolCancelledError, toolResultToMessage, type Message, type ToolResult } from "@kosong/core";
import { interruptedToolResult } from "../context/index.js";

/**
 * The result as the model reads it: a call cancelled because the turn was
 * aborted while it ran gets the interrupted result, the same one
 * `Context.restore()` gives a call a crash left unanswered.
 */
export function settledResult(result: ToolResult): ToolResult {
  return ToolCancelledError.isInstance(result.return_value) ? interruptedToolResult(result.tool_call_id) : result;
}

/** `[assistant, ...results]`, the results in call order (see {@link settledResult}). */
export function stepMessages(message: Message, results: readonly ToolResult[]): Message[] {
  return [message, ...results.map((result) => toolResultToMessage(settledResult(result)))];
}
