/**
 * Fixing what {@link validateConversation} finds, losing as little as possible.
 */
import type { ContentPart, Message } from "@kosong/core";
import {
  type ConversationRules,
  type ConversationViolation,
  isEmptyMessage,
  validateConversation,
} from "./validate-conversation.js";

/** The text of the result given to a tool call whose result was lost. */
export const MISSING_TOOL_RESULT_TEXT = "<system>ERROR: The result of this tool call was lost; the conversation was repaired.</system>";

/** The user message put before a conversation that would start with an assistant or tool message. */
export const CONTINUED_CONVERSATION_TEXT = "<system>The conversation continues from an earlier part that is not shown.</system>";

/** What {@link repairConversation} returns. */
export interface ConversationRepair {
  /** The repaired conversation: valid under the same rules. The input is never mutated. */
  messages: Message[];
  /** What was wrong with the input (empty when it was already valid and `messages` equals it). */
  violations: ConversationViolation[];
}

/**
 * Repairs `messages`:
 *
 * - an empty user or assistant message is dropped;
 * - a tool result is kept in the run right after its call; a result found
 *   elsewhere is moved there; a duplicate or a result without a call is dropped;
 * - a call without any result gets an error result ({@link MISSING_TOOL_RESULT_TEXT});
 * - a conversation that starts with an assistant message (after the system
 *   messages) gets a short user message before it;
 * - with `requireAlternation`, consecutive user messages are merged into one.
 *
 * A valid conversation comes back unchanged (same messages, same order).
 */
export function repairConversation(messages: readonly Message[], rules: ConversationRules = {}): ConversationRepair {
  const violations = validateConversation(messages, rules);
  if (violations.length === 0) return { messages: [...messages], violations };

  const results = firstResults(messages);
  const used = new Set<Message>();
  const out: Message[] = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role === "tool" || isEmptyMessage(message)) continue;
    if (message.role === "assistant" && out.every((m) => m.role === "system")) {
      out.push({ role: "user", content: [{ type: "text", text: CONTINUED_CONVERSATION_TEXT }] });
    }
    const previous = out.at(-1);
    if (rules.requireAlternation && message.role === "user" && previous?.role === "user") {
      out[out.length - 1] = mergeUserMessages(previous, message);
      continue;
    }
    out.push(message);
    for (const call of message.role === "assistant" ? (message.tool_calls ?? []) : []) {
      const result = results.get(call.id);
      if (result !== undefined && !used.has(result)) {
        used.add(result);
        out.push(result);
      } else {
        out.push({ role: "tool", content: [{ type: "text", text: MISSING_TOOL_RESULT_TEXT }], tool_call_id: call.id });
      }
    }
  }
  return { messages: keepResultOrder(out, messages), violations };
}

/** The first tool message answering each call id. */
function firstResults(messages: readonly Message[]): Map<string, Message> {
  const results = new Map<string, Message>();
  for (const message of messages) {
    if (message.role === "tool" && message.tool_call_id !== undefined && !results.has(message.tool_call_id)) {
      results.set(message.tool_call_id, message);
    }
  }
  return results;
}

/**
 * Results are emitted in call order above; where a run of results was valid
 * in another order, put that run back in its original order so that a repair
 * elsewhere never reorders it.
 */
function keepResultOrder(out: Message[], original: readonly Message[]): Message[] {
  const position = new Map<Message, number>();
  original.forEach((message, index) => position.set(message, index));
  let start = 0;
  while (start < out.length) {
    if (out[start]!.role !== "tool") {
      start++;
      continue;
    }
    let end = start;
    while (end < out.length && out[end]!.role === "tool") end++;
    const run = out.slice(start, end);
    const at = (m: Message): number => position.get(m) ?? Number.POSITIVE_INFINITY;
    run.sort((a, b) => at(a) - at(b));
    out.splice(start, run.length, ...run);
    start = end;
  }
  return out;
}

function mergeUserMessages(first: Message, second: Message): Message {
  const separator: ContentPart = { type: "text", text: "\n\n" };
  return { ...first, content: [...first.content, separator, ...second.content] };
}
