/**
 * Where the results of unanswered tool calls go: what a crash between an
 * assistant message and its results leaves behind (kimi-cli appends the two
 * separately; a torn batch can do the same here).
 */
import type { Message } from "@kosong/core";
import { validateConversation } from "../conversation/validate-conversation.js";
import { interruptedToolMessage } from "./interrupted-tool-result.js";

/** The interrupted results one assistant message is missing, and where they belong. */
export interface UnansweredToolCalls {
  /** Where the results go in the history: right after the results the assistant message has. */
  index: number;
  /** One interrupted result per unanswered call, in call order. */
  results: Message[];
}

/** Every assistant message with calls that have no result right after it, in history order. */
export function findUnansweredToolCalls(messages: readonly Message[]): UnansweredToolCalls[] {
  const missing = new Map<number, Message[]>();
  for (const violation of validateConversation(messages)) {
    if (violation.kind !== "missing-tool-result") continue;
    const results = missing.get(violation.index) ?? [];
    results.push(interruptedToolMessage(violation.toolCallId!));
    missing.set(violation.index, results);
  }
  return [...missing].map(([owner, results]) => {
    let index = owner + 1;
    while (messages[index]?.role === "tool") index += 1;
    return { index, results };
  });
}

/**
 * {@link findUnansweredToolCalls} for the end of the history only: the last
 * assistant message, when nothing but tool messages follows it. After a
 * revert this is all there is to check (the rest was checked on restore).
 */
export function findUnansweredTailCalls(messages: readonly Message[]): UnansweredToolCalls[] {
  let start = messages.length - 1;
  while (start >= 0 && messages[start]!.role === "tool") start -= 1;
  if (start < 0 || messages[start]!.role !== "assistant") return [];
  return findUnansweredToolCalls(messages.slice(start)).map(({ index, results }) => ({ index: start + index, results }));
}
