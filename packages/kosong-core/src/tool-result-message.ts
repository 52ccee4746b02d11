/**
 * Turning a tool result into the tool message appended to the history, as
 * kimi-cli does (`tool_result_to_message`).
 */
import type { ContentPart, Message } from "./message.js";
import { ToolRuntimeError } from "./tool-errors.js";
import type { ToolResult } from "./toolset.js";

function system(text: string): ContentPart {
  return { type: "text", text: `<system>${text}</system>` };
}

function outputParts(output: string | ContentPart[], into: ContentPart[]): void {
  if (typeof output === "string") {
    if (output !== "") into.push({ type: "text", text: output });
  } else {
    for (const part of output) into.push(part);
  }
}

/**
 * The `tool` message answering `result.tool_call_id`:
 *
 * - an error becomes `<system>ERROR: {message}</system>` followed by the
 *   output, if any (a runtime error adds "This is an unexpected error and the
 *   tool is probably not working." to the message);
 * - a success becomes `<system>{message}</system>` when there is a message,
 *   then the output; an empty result becomes `<system>Tool output is empty.</system>`.
 */
export function toolResultToMessage(result: ToolResult): Message {
  const value = result.return_value;
  const content: ContentPart[] = [];
  if (value.is_error) {
    let message = value.message;
    if (ToolRuntimeError.isInstance(value)) message += "\nThis is an unexpected error and the tool is probably not working.";
    content.push(system(message === "" ? "ERROR" : `ERROR: ${message}`));
    outputParts(value.output, content);
  } else {
    if (value.message !== "") content.push(system(value.message));
    outputParts(value.output, content);
    if (content.length === 0) content.push(system("Tool output is empty."));
  }
  return { role: "tool", content, tool_call_id: result.tool_call_id };
}
