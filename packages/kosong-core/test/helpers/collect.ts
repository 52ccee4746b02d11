/**
 * Test helpers that drain a provider stream, and an independent (deliberately
 * simple) merge of streamed parts by kosong's rules, to compare what a
 * provider streams with the message it should amount to.
 */
import type { ContentPart, Message, StreamedMessage, StreamedMessagePart, ToolCall } from "@kosong/core";

/** Every part of a stream, in order. */
export async function collectParts(stream: AsyncIterable<StreamedMessagePart>): Promise<StreamedMessagePart[]> {
  const parts: StreamedMessagePart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

/** The error a stream ends with after yielding `parts` (fails the test when it ends normally). */
export async function collectUntilError(stream: AsyncIterable<StreamedMessagePart>): Promise<{ parts: StreamedMessagePart[]; error: unknown }> {
  const parts: StreamedMessagePart[] = [];
  try {
    for await (const part of stream) parts.push(part);
  } catch (error) {
    return { parts, error };
  }
  throw new Error(`stream ended normally after ${parts.length} parts`);
}

/** What {@link collect} returns: the raw parts, their merge, and the drained stream (for `id`, `usage`, ...). */
export interface Collected {
  parts: StreamedMessagePart[];
  message: Message;
  stream: StreamedMessage;
}

/** Drains `stream` and merges its parts with {@link mergeParts}. */
export async function collect(stream: StreamedMessage): Promise<Collected> {
  const parts = await collectParts(stream);
  return { parts, message: mergeParts(parts), stream };
}

/**
 * The assistant message `parts` amount to: text into the open text part,
 * think into the open think part until it is signed, argument fragments into
 * the call with the same stream `index` (else the open call); anything else
 * closes the open group. Parts are copied, never mutated. Throws on an
 * argument fragment that has no call to go to (a broken stream).
 */
export function mergeParts(parts: readonly StreamedMessagePart[]): Message {
  const content: ContentPart[] = [];
  const calls: ToolCall[] = [];
  const byIndex = new Map<number, ToolCall>();
  let open: ContentPart | ToolCall | null = null;
  for (const part of parts) {
    if (part.type === "function") {
      const { index, ...call } = part;
      const copy: ToolCall = { ...call, function: { ...call.function } };
      calls.push(copy);
      if (index !== undefined) byIndex.set(index, copy);
      open = copy;
    } else if (part.type === "tool_call_part") {
      const call = part.index !== undefined ? byIndex.get(part.index) : open?.type === "function" ? open : undefined;
      if (!call) throw new Error(`argument fragment for no open call: ${JSON.stringify(part)}`);
      if (part.arguments_part !== null) call.function.arguments = (call.function.arguments ?? "") + part.arguments_part;
    } else if (part.type === "text" && open?.type === "text") {
      open.text += part.text;
    } else if (part.type === "think" && open?.type === "think" && !open.encrypted) {
      open.think += part.think;
      if (part.encrypted) open.encrypted = part.encrypted;
    } else {
      const copy = structuredClone(part);
      content.push(copy);
      open = copy;
    }
  }
  const message: Message = { role: "assistant", content };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}
