/**
 * Workload W's messages, shared by the benchmarks that use them: message i
 * cycles user / assistant (a think part, a text part and a Shell tool call) /
 * tool result, ~0.8 KB each, their text taken from a repeated sentence.
 */
import type { Message } from "@kosong/core";

/** Messages in W. */
export const W_MESSAGES = 20_000;

/** W's English text (the default). */
export const W_WORDS = "the quick brown fox jumps over the lazy dog while reading files and running tools ".repeat(8);

/** Message `i` of W, its text taken from `text`. */
export function workMessage(i: number, text: string = W_WORDS): Message {
  switch (i % 3) {
    case 0:
      return { role: "user", content: [{ type: "text", text: `Request ${i}: ${text.slice(0, 960)}` }] };
    case 1:
      return {
        role: "assistant",
        content: [
          { type: "think", think: `Step ${i}: ${text.slice(0, 420)}`, encrypted: null },
          { type: "text", text: `I will look. ${text.slice(0, 300)}` },
        ],
        tool_calls: [
          { type: "function", id: `call_${i}`, function: { name: "Shell", arguments: JSON.stringify({ command: `grep -rn ${i} ${text.slice(0, 120)}` }) } },
        ],
      };
    default:
      return { role: "tool", content: [{ type: "text", text: `Output ${i}: ${text.slice(0, 940)}` }], tool_call_id: `call_${i - 1}` };
  }
}
