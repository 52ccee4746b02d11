/** Hand-made histories and checks shared by the compaction tests. */
import { assistantMessage, type Message, toolCall, toolMessage, userMessage } from "@kosong/core";
import { type CompactionResult } from "@kosong/soul/compaction";
import { validateConversation } from "@kosong/soul/conversation";
import { estimateTokens, type Tokenizer } from "@kosong/soul/tokens";
import { expect } from "vitest";

/** One tool round: an assistant message calling `name` on `path`, and its result. */
export function toolRound(id: string, name: string, path: string, output: string, text = ""): Message[] {
  return [assistantMessage(text, [toolCall(id, name, { path })]), toolMessage(id, output)];
}

/** `n` words of filler prose. */
export function prose(n: number, word = "lorem"): string {
  return Array.from({ length: n }, (_, i) => `${word}${i % 10}`).join(" ");
}

/** A user request, `rounds` tool rounds with outputs of `outputWords` words, and a closing answer. */
export function taskHistory(rounds: number, outputWords = 50, request = "please refactor the parser"): Message[] {
  const messages: Message[] = [userMessage(request)];
  for (let i = 0; i < rounds; i++) messages.push(...toolRound(`c${i}`, "Read", `/src/file${i}.ts`, prose(outputWords, `w${i}x`)));
  messages.push(assistantMessage("Done with the parser."));
  return messages;
}

/** Asserts the result is a valid conversation and within `maxTokens` (counted with `tokenizer`, default o200k). */
export function expectValidWithin(result: CompactionResult, maxTokens: number, tokenizer?: Tokenizer): void {
  expect(validateConversation(result.messages)).toEqual([]);
  const tokens = estimateTokens(result.messages, tokenizer === undefined ? {} : { tokenizer });
  expect(tokens).toBeLessThanOrEqual(maxTokens);
  expect(result.details?.withinBudget).toBe(true);
}

/** The text of every message, joined. */
export function allText(messages: readonly Message[]): string {
  return messages.map((m) => m.content.map((p) => (p.type === "text" ? p.text : "")).join("")).join("\n");
}

/** The text of `messages` (texts and tool-call arguments) without an identifier index: what the index lists is a name, not the line that uses it. */
export function keptContent(messages: readonly Message[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    for (const part of message.content) if (part.type === "text") parts.push(part.text.split("## Identifiers in the removed messages")[0]!);
    for (const call of message.tool_calls ?? []) parts.push(call.function.arguments ?? "");
  }
  return parts.join("\n");
}
