/**
 * Workload W's messages, shared by the benchmarks that use them: message i
 * cycles user / assistant (a think part, a text part and a Shell tool call) /
 * tool result, ~0.8 KB each, their text taken from a repeated sentence.
 */
import type { Message } from "@kosong/core";
import { checkpointRecord, messageRecord, usageRecord, type ContextRecord } from "@kosong/context/records";

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

/**
 * W's first `messages` messages as context-file records: a checkpoint before
 * every `checkpointEvery`-th message (by default 3: before every user
 * message; 2 is a session whose steps each make one, as the soul's do) and
 * a usage record after every tool result.
 */
export function workRecords(messages: number = W_MESSAGES, checkpointEvery = 3): ContextRecord[] {
  const records: ContextRecord[] = [];
  let checkpoint = 0;
  for (let i = 0; i < messages; i += 1) {
    if (i % checkpointEvery === 0) records.push(checkpointRecord(checkpoint++));
    records.push(messageRecord(workMessage(i)));
    if (i % 3 === 2) records.push(usageRecord(1000 + i * 300));
  }
  return records;
}
