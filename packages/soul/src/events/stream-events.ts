/**
 * Streamed parts and tool results as soul events.
 */
import { parseToolArguments, type JsonValue, type StreamedMessagePart, type ToolCall, type ToolResult } from "@kosong/core";
import { partEventTypes, type SoulEvent } from "./events.js";
import { settledResult } from "../loop/step-messages.js";

/** The event of a streamed part: a content part by its type, a `ToolCallBegin`, or a `ToolCallPart`. */
export function partEvent(part: StreamedMessagePart): SoulEvent {
  switch (part.type) {
    case "function":
      return { type: "ToolCallBegin", payload: part };
    case "tool_call_part":
      return { type: "ToolCallPart", payload: part };
    default:
      return { type: partEventTypes[part.type], payload: part } as SoulEvent;
  }
}

/** The `ToolResult` event of a result, as the model will read it (a cancelled call is interrupted). */
export function toolResultEvent(result: ToolResult, notRun?: ReadonlySet<string>): SoulEvent {
  const settled = settledResult(result, notRun);
  return { type: "ToolResult", payload: { tool_call_id: settled.tool_call_id, return_value: settled.return_value } };
}

/** The `ToolCall` event of a complete call, with its arguments parsed as the toolset parses them. */
export function toolCallEvent(call: ToolCall): SoulEvent {
  let parsed: JsonValue | null;
  try {
    parsed = parseToolArguments(call.function.arguments) as JsonValue;
  } catch {
    parsed = null;
  }
  return { type: "ToolCall", payload: { ...call, parsed_arguments: parsed } };
}
