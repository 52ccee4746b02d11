/**
 * Streamed parts and tool results as soul events.
 */
import type { StreamedMessagePart, ToolResult } from "@kosong/core";
import { partEventTypes, type SoulEvent } from "./events.js";
import { settledResult } from "./step-messages.js";

/** The event of a streamed part: a content part by its type, a `ToolCall`, or a `ToolCallPart`. */
export function partEvent(part: StreamedMessagePart): SoulEvent {
  switch (part.type) {
    case "function":
      return { type: "ToolCall", payload: part };
    case "tool_call_part":
      return { type: "ToolCallPart", payload: part };
    default:
      return { type: partEventTypes[part.type], payload: part } as SoulEvent;
  }
}

/** The `ToolResult` event of a result, as the model will read it (a cancelled call is interrupted). */
export function toolResultEvent(result: ToolResult): SoulEvent {
  const settled = settledResult(result);
  return { type: "ToolResult", payload: { tool_call_id: settled.tool_call_id, return_value: settled.return_value } };
}
