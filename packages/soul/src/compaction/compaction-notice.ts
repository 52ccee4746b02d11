/**
 * The short user messages a compaction writes into the conversation: a
 * notice of what was left out (it also keeps the conversation starting with
 * a user message), and the stub that replaces a bulky tool output.
 */
import type { Message } from "@kosong/core";

/**
 * The user message that says `dropped` earlier messages (or, with 0, parts of
 * tool outputs) were left out, followed by `index` (an index of the
 * identifiers they held) when given, all inside one `<system>` tag.
 */
export function droppedNotice(dropped: number, index = ""): Message {
  const what =
    dropped === 0 ? "Some tool outputs were elided" : dropped === 1 ? "1 earlier message was removed" : `${dropped} earlier messages were removed`;
  const text = `<system>${what} to fit the context window.${index === "" ? "" : `\n\n${index}`}</system>`;
  return { role: "user", content: [{ type: "text", text }] };
}

/** The tool message that stands for a tool output of `tokens` tokens: same call id, text `[tool output elided: N tokens]`. */
export function toolOutputStub(result: Message, tokens: number): Message {
  return { role: "tool", content: [{ type: "text", text: `[tool output elided: ${tokens} tokens]` }], tool_call_id: result.tool_call_id };
}

/** True for a tool message made by {@link toolOutputStub}. */
export function isToolOutputStub(message: Message): boolean {
  const part = message.content[0];
  return message.role === "tool" && message.content.length === 1 && part?.type === "text" && /^\[tool output elided: \d+ tokens\]$/.test(part.text);
}
