import type { ContentPart, StreamedMessage, StreamedMessagePart, ToolCall } from "@kosong/core";

/** Every part of a stream, in order. */
export async function collect(stream: AsyncIterable<StreamedMessagePart>): Promise<StreamedMessagePart[]> {
  const parts: StreamedMessagePart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

/** The error a stream ends with after yielding `parts` (fails the test when it ends normally). */
export async function collectUntilError(stream: StreamedMessage): Promise<{ parts: StreamedMessagePart[]; error: unknown }> {
  const parts: StreamedMessagePart[] = [];
  try {
    for await (const part of stream) parts.push(part);
  } catch (error) {
    return { parts, error };
  }
  throw new Error(`stream ended normally after ${parts.length} parts`);
}

/**
 * A deliberately simple merge (text into text, think into think, fragments
 * into the last tool call) to compare chunked streams with whole ones.
 */
export function merge(parts: readonly StreamedMessagePart[]): { content: ContentPart[]; toolCalls: ToolCall[] } {
  const content: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  let last: "content" | "call" | null = null;
  for (const part of parts) {
    if (part.type === "function") {
      const { index: _index, ...call } = part;
      toolCalls.push({ ...call, function: { ...call.function } });
      last = "call";
    } else if (part.type === "tool_call_part") {
      const call = toolCalls.at(-1)!;
      if (part.arguments_part !== null) call.function.arguments = (call.function.arguments ?? "") + part.arguments_part;
    } else {
      const open = last === "content" ? content.at(-1) : undefined;
      if (part.type === "text" && open?.type === "text") open.text += part.text;
      else if (part.type === "think" && open?.type === "think" && !open.encrypted) {
        open.think += part.think;
        open.encrypted = part.encrypted ?? null;
      } else content.push({ ...part });
      last = "content";
    }
  }
  return { content, toolCalls };
}
