/**
 * The messages one step adds to the context: the assistant message and one
 * result per tool call, appended as one batch.
 */
import { ToolCancelledError, toolResultToMessage, type Message, type ToolResult } from "@kosong/core";
import { interruptedToolResult } from "../context/index.js";

/**
 * The result as the model reads it: a call cancelled because the turn was
 * aborted while it ran gets the interrupted result, the same one
 * `Context.restore()` gives a call a crash left unanswered; one whose id is
 * in `notRun` (cut at its approval prompt) is told it did not run.
 */
export function settledResult(result: ToolResult, notRun: ReadonlySet<string> = new Set()): ToolResult {
  if (!ToolCancelledError.isInstance(result.return_value)) return result;
  return interruptedToolResult(result.tool_call_id, !notRun.has(result.tool_call_id));
}

/** `[assistant, ...results]`, the results in call order (see {@link settledResult}). */
export function stepMessages(message: Message, results: readonly ToolResult[], notRun?: ReadonlySet<string>): Message[] {
  return [message, ...results.map((result) => toolResultToMessage(settledResult(result, notRun)))];
}
