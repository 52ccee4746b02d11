import type { Message } from "@kosong/core";

/**
 * A fast, provider-independent estimate of the tokens a list of messages
 * costs: about four characters per token over text, thinking, tool-call names
 * and arguments, plus a small per-message overhead. Used for budgets between
 * real usage reports, never as a substitute for them.
 */
export function estimateTokens(messages: readonly Message[]): number {
  let chars = 0;
  for (const message of messages) {
    chars += 16;
    for (const part of message.content) {
      if (part.type === "text") chars += part.text.length;
      else if (part.type === "think") chars += part.think.length;
      else chars += 256;
    }
    for (const call of message.tool_calls ?? []) chars += call.function.name.length + (call.function.arguments?.length ?? 0);
  }
  return Math.ceil(chars / 4);
}
