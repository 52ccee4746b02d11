/**
 * Choosing by use, not by age (issue 27, Build 2): the file a call names by
 * an absolute path is the same file a later message names by a relative one,
 * and a block of parallel tool calls gives its results up one at a time.
 */
import { assistantMessage, type Message, toolCall, toolMessage, userMessage } from "@kosong/core";
import { type CompactionResult, isToolOutputStub, PreserveImportantCompaction } from "@kosong/soul/compaction";
import { estimateTokens } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";
import { allText, expectValidWithin } from "./helpers/histories.js";

/** `lines` lines of neutral file content (naming nothing the recent messages name), each distinct. */
const body = (word: string, lines: number): string => Array.from({ length: lines }, (_, i) => `${word} entry ${i} holds a value of ${i * 7}`).join("\n");

/** True when the output of call `id` is in the result whole (not dropped, not a stub, not cut). */
const whole = (result: CompactionResult, input: readonly Message[], id: string): boolean => {
  const given = input.find((m) => m.role === "tool" && m.tool_call_id === id)!;
  return result.messages.some((m) => m.tool_call_id === id && !isToolOutputStub(m) && allText([m]) === allText([given]));
};

const options = { keepRecent: 2, indexShare: 0, bulkyToolOutputTokens: 10_000 };

describe("PreserveImportantCompaction matches paths by their normalised suffix", () => {
  it("keeps an old view of a file read by its absolute path when the recent messages name it by a relative one, over a newer view of another file", async () => {
    const input: Message[] = [
      userMessage("Tidy up the repository."),
      assistantMessage("", [toolCall("c1", "Read", { path: "/home/dev/repo/src/pkg/headers.py" })]),
      toolMessage("c1", body("alpha", 40)),
      assistantMessage("", [toolCall("c2", "Read", { path: "/home/dev/repo/src/pkg/cookies.py" })]),
      toolMessage("c2", body("gamma", 40)),
      userMessage("Now fix the bug in ./src/pkg/headers.py."),
      assistantMessage("I will edit src/pkg/headers.py next."),
    ];
    const view = estimateTokens(input.slice(1, 3));
    const maxTokens = Math.ceil((estimateTokens(input) - view + 40) / 0.9);
    const result = await new PreserveImportantCompaction({ maxTokens, ...options }).compact(input);
    expectValidWithin(result, maxTokens);
    expect(whole(result, input, "c1")).toBe(true);
    expect(whole(result, input, "c2")).toBe(false);
  });
});

describe("PreserveImportantCompaction gives up parallel results one at a time", () => {
  it("stubs one of three parallel outputs when that is enough, keeping the other two and the calls", async () => {
    const calls = ["p1", "p2", "p3"].map((id, i) => toolCall(id, "Shell", { command: `ls dir${i}` }));
    const input: Message[] = [
      userMessage("List the three folders."),
      assistantMessage("", calls),
      toolMessage("p1", body("one", 30)),
      toolMessage("p2", body("two", 30)),
      toolMessage("p3", body("three", 30)),
      userMessage("Thanks. Now say which is biggest."),
      assistantMessage("The second one."),
    ];
    const output = estimateTokens([input[2]!]);
    const maxTokens = Math.ceil((estimateTokens(input) - output + 30) / 0.9);
    const result = await new PreserveImportantCompaction({ maxTokens, ...options }).compact(input);
    expectValidWithin(result, maxTokens);
    const kept = ["p1", "p2", "p3"].filter((id) => whole(result, input, id));
    expect(kept).toHaveLength(2);
    expect(result.messages.filter((m) => m.role === "assistant" && m.tool_calls?.length === 3)).toHaveLength(1);
  });
});
