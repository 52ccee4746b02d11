/**
 * The messages the contract suites append: a user turn, an assistant turn
 * with a think part (signed on odd turns), non-ASCII text and a tool call,
 * and its tool result; and their JSONL lines, which compare messages the way
 * a file stores them.
 */
import { serializeMessage, type Message } from "@kosong/core";

export function user(text: string): Message {
  return { role: "user", content: [{ type: "text", text }] };
}

export function assistant(i: number): Message {
  return {
    role: "assistant",
    content: [
      { type: "think", think: `thinking ${i}`, encrypted: i % 2 === 0 ? null : `sig-${i}` },
      { type: "text", text: `answer ${i} 你好 😀` },
    ],
    tool_calls: [{ type: "function", id: `call_${i}`, function: { name: "Shell", arguments: `{"n": ${i}}` } }],
  };
}

export function tool(i: number): Message {
  return { role: "tool", content: [{ type: "text", text: `result ${i}` }], tool_call_id: `call_${i}` };
}

export function lines(messages: readonly Message[]): string[] {
  return messages.map((m) => serializeMessage(m));
}
