/**
 * A range of messages as the text a recall returns: each message under a
 * header with its index and role, tool calls spelled out, tool results named
 * after their call, think parts left out, media named.
 */
import type { Message, ToolCall } from "@kosong/core";

const ARGUMENT_CHARS = 2000;

/** `messages[from, to)` as text; `calls` finds the call of a tool result whose call is outside the range. */
export function renderRange(messages: readonly Message[], from: number, to: number, calls: ReadonlyMap<string, ToolCall>): string {
  const blocks: string[] = [];
  for (let i = from; i < to; i++) {
    const message = messages[i]!;
    const call = message.tool_call_id === undefined ? undefined : calls.get(message.tool_call_id);
    const lines = [`[${i}] ${message.role}${call === undefined ? "" : ` (result of ${call.function.name})`}:`];
    for (const part of message.content) {
      if (part.type === "text") lines.push(part.text);
      else if (part.type !== "think") lines.push(`[${part.type.replace("_url", "")}]`);
    }
    for (const c of message.tool_calls ?? []) lines.push(`→ ${c.function.name}(${clip(c.function.arguments ?? "")})`);
    blocks.push(lines.join("\n"));
  }
  return blocks.join("\n\n");
}

/** Every tool call of `messages` by id. */
export function callsById(messages: readonly Message[]): Map<string, ToolCall> {
  const calls = new Map<string, ToolCall>();
  for (const message of messages) for (const call of message.tool_calls ?? []) calls.set(call.id, call);
  return calls;
}

function clip(text: string): string {
  return text.length <= ARGUMENT_CHARS ? text : `${text.slice(0, ARGUMENT_CHARS)}… (${text.length - ARGUMENT_CHARS} more characters)`;
}
