/**
 * What OpenAI and Anthropic reject in a conversation, listed rather than
 * thrown, so that a caller (the soul after a compaction, a test) can report
 * it and {@link repairConversation} can fix it.
 */
import type { Message } from "@kosong/core";

/** The kinds of problem {@link validateConversation} finds. */
export type ConversationViolationKind =
  /** After the system messages, the first message is an assistant or tool message. */
  | "starts-with-non-user"
  /** A tool result whose call is in no assistant message. */
  | "orphan-tool-result"
  /** A tool result that is not in the run of tool messages right after its call's assistant message. */
  | "misplaced-tool-result"
  /** A second result for the same call. */
  | "duplicate-tool-result"
  /** A tool call without a result right after its assistant message. */
  | "missing-tool-result"
  /** A user or assistant message with no non-empty part and no tool call (Anthropic rejects empty content). */
  | "empty-message"
  /** A user message right after a user message (only with `requireAlternation`). */
  | "consecutive-user";

/** One problem, at the index of the message it concerns. */
export interface ConversationViolation {
  kind: ConversationViolationKind;
  /** Index of the offending message (for `missing-tool-result`: the assistant message that made the call). */
  index: number;
  /** The tool call concerned, for the tool-result kinds. */
  toolCallId?: string;
  /** A sentence for people. */
  message: string;
}

/** Options of {@link validateConversation} and {@link repairConversation}. */
export interface ConversationRules {
  /**
   * Treat consecutive user messages as a violation (repair merges them, as
   * Kode's normalisation does). Off by default: OpenAI accepts them,
   * Anthropic merges them itself, and kimi-cli writes them by design (a
   * checkpoint message followed by the user's input).
   */
  requireAlternation?: boolean;
}

/**
 * Lists every violation in `messages`, in message order. An empty list
 * means both OpenAI and Anthropic accept the conversation as far as its
 * structure goes: after any system messages it starts with a user message,
 * every tool call is answered exactly once in the run of tool messages right
 * after its assistant message, and no message is empty.
 */
export function validateConversation(messages: readonly Message[], rules: ConversationRules = {}): ConversationViolation[] {
  const violations: ConversationViolation[] = [];
  const callOwner = new Map<string, number>();
  messages.forEach((message, index) => {
    for (const call of message.role === "assistant" ? (message.tool_calls ?? []) : []) callOwner.set(call.id, index);
  });
  const answered = new Set<string>();
  let pending = new Map<string, number>();
  let first = true;
  let previousRole: Message["role"] | null = null;

  const closeRound = (): void => {
    for (const [id, owner] of pending) {
      violations.push({ kind: "missing-tool-result", index: owner, toolCallId: id, message: `Tool call ${id} has no result.` });
    }
    pending = new Map();
  };

  messages.forEach((message, index) => {
    if (message.role !== "tool") closeRound();
    if (first && message.role !== "system") {
      first = false;
      if (message.role !== "user") {
        violations.push({ kind: "starts-with-non-user", index, message: `The conversation starts with a ${message.role} message.` });
      }
    }
    if (message.role === "tool") {
      checkToolResult(message, index, pending, answered, callOwner, violations);
    } else if (isEmptyMessage(message)) {
      violations.push({ kind: "empty-message", index, message: `The ${message.role} message has no content.` });
    }
    if (rules.requireAlternation && message.role === "user" && previousRole === "user") {
      violations.push({ kind: "consecutive-user", index, message: "A user message follows a user message." });
    }
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) pending.set(call.id, index);
    }
    previousRole = message.role;
  });
  closeRound();
  return violations.sort((a, b) => a.index - b.index);
}

function checkToolResult(
  message: Message,
  index: number,
  pending: Map<string, number>,
  answered: Set<string>,
  callOwner: ReadonlyMap<string, number>,
  violations: ConversationViolation[],
): void {
  const id = message.tool_call_id ?? "";
  if (pending.delete(id)) {
    answered.add(id);
    return;
  }
  if (answered.has(id)) {
    violations.push({ kind: "duplicate-tool-result", index, toolCallId: id, message: `Tool call ${id} already has a result.` });
  } else if (callOwner.has(id)) {
    violations.push({
      kind: "misplaced-tool-result",
      index,
      toolCallId: id,
      message: `The result of tool call ${id} is not right after its call (message ${callOwner.get(id)}).`,
    });
  } else {
    violations.push({ kind: "orphan-tool-result", index, toolCallId: id, message: `No assistant message calls tool call ${id}.` });
  }
}

/** A user or assistant message that carries nothing: no tool call and no part but empty text. */
export function isEmptyMessage(message: Message): boolean {
  if (message.role !== "user" && message.role !== "assistant") return false;
  if ((message.tool_calls?.length ?? 0) > 0) return false;
  return message.content.every((part) => (part.type === "text" && part.text.trim() === "") || (part.type === "think" && part.think === ""));
}
