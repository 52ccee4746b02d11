/**
 * Test helper: drains a provider stream and merges its parts the way kosong
 * merges them (text into text, think into think until it is signed, argument
 * fragments into the call with the same stream index, else the last call).
 */
import type { ContentPart, Message, StreamedMessage, StreamedMessagePart, ToolCall } from "@kosong/core";

export interface Collected {
  parts: StreamedMessagePart[];
  message: Message;
  stream: StreamedMessage;
}

export async function collect(stream: StreamedMessage): Promise<Collected> {
  const parts: StreamedMessagePart[] = [];
  const content: ContentPart[] = [];
  const calls: ToolCall[] = [];
  const byIndex = new Map<number, ToolCall>();
  for await (const part of stream) {
    parts.push(part);
    if (part.type === "function") {
      const { index, ...call } = part;
      const copy: ToolCall = { ...call, function: { ...call.function } };
      calls.push(copy);
      if (index !== undefined) byIndex.set(index, copy);
    } else if (part.type === "tool_call_part") {
      const call = part.index !== undefined ? byIndex.get(part.index) : calls.at(-1);
      if (!call) throw new Error(`argument fragment for no open call: ${JSON.stringify(part)}`);
      call.function.arguments = (call.function.arguments ?? "") + (part.arguments_part ?? "");
    } else {
      const last = content.at(-1);
      if (part.type === "text" && last?.type === "text") last.text += part.text;
      else if (part.type === "think" && last?.type === "think" && !last.encrypted) {
        last.think += part.think;
        if (part.encrypted) last.encrypted = part.encrypted;
      } else content.push({ ...part });
    }
  }
  const message: Message = { role: "assistant", content };
  if (calls.length > 0) message.tool_calls = calls;
  return { parts, message, stream };
}
