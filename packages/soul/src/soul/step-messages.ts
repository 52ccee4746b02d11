/**
 * The messages one step adds to the context: the assistant message and one
 * result per tool call, appended as one batch.
 */
import { ToolCancelledError, toolResultToMessage, type Message, type ToolResult } from "@kosong/core";
import { interruptedToolMessage } from "../context/index.js";

/**
 * `[assistant, ...results]` in call order. A call that was cancelled (the
 * turn was aborted while it ran) is answered with the interrupted result,
 * the same one `Context.restore()` gives a call a crash left unanswered.
 */
export function stepMessages(message: Message, results: readonly ToolResult[]): Message[] {
  const batch = [message];
  for (const result of results) {
    batch.push(ToolCancelledError.isInstance(result.return_value) ? interruptedToolMessage(result.tool_call_id) : toolResultToMessage(result));
  }
  return batch;
}
