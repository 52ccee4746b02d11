/**
 * The request an LLM-backed strategy sends to summarise messages: one user
 * message holding a transcript of them and the instructions (kimi-cli's
 * shape), and the user message that carries the summary back into the
 * conversation.
 */
import type { ContentPart, Message } from "@kosong/core";

/** The system prompt of every summarising call. */
export const COMPACTION_SYSTEM_PROMPT = "You are a helpful assistant that compacts conversation context.";

/** The line that opens the user message holding a summary (kimi-cli's words). */
export const COMPACTION_OUTPUT_PREFIX = "<system>Previous context has been compacted. Here is the compaction output:</system>";

/** kimi-cli-style instructions: what a summary must keep. */
export const SIMPLE_SUMMARY_PROMPT = `Summarise the conversation above so that the work can continue from the summary alone.
Keep, in order of priority:
1. The user's requests, constraints and preferences, in their own words where they are short.
2. The current state of the task: what is done, what is in progress, what is next.
3. Files, commands, identifiers and values that later work needs, exactly as written.
4. Errors met, their causes and how they were resolved (or that they were not).
5. Decisions taken and why.
Drop greetings, repetition, and tool output that no longer matters. Write compactly, without preamble.`;

/** Renders one message of a transcript as text (think parts left out, media named, tool calls spelled out). */
export function renderMessage(message: Message, position: number): string {
  const lines = [`## Message ${position}`, `Role: ${message.role}`];
  if (message.tool_call_id !== undefined) lines.push(`Tool call id: ${message.tool_call_id}`);
  lines.push("Content:");
  for (const part of message.content) {
    if (part.type === "text") {
      if (part.text.trim() !== "") lines.push(part.text);
    } else if (part.type !== "think") {
      lines.push(`[${part.type.replace("_url", "")}]`);
    }
  }
  for (const call of message.tool_calls ?? []) {
    lines.push(`Tool call ${call.id}: ${call.function.name}(${call.function.arguments ?? ""})`);
  }
  return lines.join("\n");
}

/**
 * The one user message that asks for a summary of `messages` with `prompt`;
 * the user's `instruction` (from `/compact <instruction>`) takes priority.
 */
export function summaryRequest(messages: readonly Message[], prompt: string, instruction?: string): Message {
  const transcript = messages.map((message, index) => renderMessage(message, index + 1)).join("\n\n");
  let text = `${transcript}\n\n${prompt}`;
  if (instruction !== undefined && instruction.trim() !== "") {
    text +=
      "\n\n**The user's instruction for this compaction** (it takes priority over the instructions above):\n" + instruction.trim();
  }
  return { role: "user", content: [{ type: "text", text }] };
}

/** The user message that carries `summary` (an LLM's parts, think parts dropped) into the compacted conversation. */
export function summaryMessage(summary: readonly ContentPart[]): Message {
  const content: ContentPart[] = [{ type: "text", text: COMPACTION_OUTPUT_PREFIX }];
  for (const part of summary) if (part.type !== "think") content.push(part);
  return { role: "user", content };
}
