import { assistantMessage, extractText, systemMessage, textPart, toolCall, toolMessage, userMessage, type Message } from "@kosong/core";
import { MockChatProvider, ScriptedChatProvider } from "@kosong/core/testing";
import { CompactionError } from "@kosong/soul";
import { prepareSimpleCompaction, SimpleCompaction, SmartCompaction } from "@kosong/soul/compaction";
import { validateConversation } from "@kosong/soul/conversation";
import { describe, expect, it } from "vitest";

function history(rounds: number): Message[] {
  const messages: Message[] = [];
  for (let i = 0; i < rounds; i++) {
    messages.push(userMessage(`request ${i}`));
    messages.push(assistantMessage(`calling ${i}`, [toolCall(`c${i}`, "Read", { path: `/f${i}` })]));
    messages.push(toolMessage(`c${i}`, `contents ${i}`));
    messages.push(assistantMessage(`answer ${i}`));
  }
  return messages;
}

describe("SimpleCompaction (kimi-cli)", () => {
  it("summarises all but the last two user/assistant messages through the provider", async () => {
    const provider = new ScriptedChatProvider(['usage: {"input_other": 120, "output": 30}\nthink: let me see\ntext: The user asked for files 0-2.']);
    const input = history(3);
    const result = await new SimpleCompaction().compact(input, { provider, instruction: "keep paths" });

    // the last two user/assistant messages are "calling 2" (with its tool result) and "answer 2"
    expect(result.messages.slice(1)).toEqual(input.slice(-3));
    const summary = result.messages[0]!;
    expect(summary.role).toBe("user");
    // The model's summary, then what it lacks: the user's requests verbatim (and the working files, here none).
    expect(extractText(summary, "\n")).toMatch(
      /^<system>Previous context has been compacted\. Here is the compaction output:<\/system>\nThe user asked for files 0-2\.\n\n## User requests and constraints\n- request 0\n- request 1\n- request 2/,
    );
    expect(summary.content.some((p) => p.type === "think")).toBe(false);
    expect(result.usage).toEqual({ input_other: 120, output: 30, input_cache_read: 0, input_cache_creation: 0 });
    expect(result.details).toMatchObject({ kept: 3, dropped: 9, summarized: true });

    const [call] = provider.calls;
    expect(call!.tools).toEqual([]);
    expect(call!.history).toHaveLength(1);
    const request = extractText(call!.history[0]!);
    expect(request).toContain("## Message 1\nRole: user");
    expect(request).toContain('Tool call c0: Read({"path":"/f0"})');
    expect(request).toContain("contents 1");
    expect(request).toContain("request 2");
    expect(request).not.toContain("contents 2");
    expect(request.trimEnd().endsWith("keep paths")).toBe(true);
    expect(validateConversation(result.messages)).toEqual([]);
  });

  it("keeps the tool results of a kept assistant message with it", () => {
    const input = history(2);
    // the last two user/assistant messages are "calling 1" (with its result) and "answer 1"
    const plan = prepareSimpleCompaction(input, { keepRecent: 2 });
    expect(plan.toPreserve.map((m) => m.role)).toEqual(["assistant", "tool", "assistant"]);
    expect(plan.toCompact).toHaveLength(5);
  });

  it("returns the history unchanged, without calling the provider, when there is too little of it", async () => {
    const provider = new ScriptedChatProvider([]);
    const input = [userMessage("hi"), assistantMessage("hello")];
    const result = await new SimpleCompaction().compact(input, { provider });
    expect(result.messages).toEqual(input);
    expect(result.usage).toBeNull();
    expect(provider.calls).toHaveLength(0);
    expect((await new SimpleCompaction({ keepRecent: 5 }).compact(history(1), { provider })).messages).toEqual(history(1));
  });

  it("offers seed 002's variant: keep the last 20, compact only above 60 messages, system messages kept", async () => {
    const compaction = new SimpleCompaction({ keepRecent: 20, compactAbove: 60 });
    const small = history(15); // 60 messages
    expect(prepareSimpleCompaction(small, { keepRecent: 20, compactAbove: 60 }).toCompact).toEqual([]);

    const big = [systemMessage("project rules"), ...history(20)];
    const provider = new ScriptedChatProvider(["text: summary"]);
    const result = await compaction.compact(big, { provider });
    expect(result.messages[0]).toEqual(systemMessage("project rules"));
    expect(extractText(result.messages[1]!)).toContain("summary");
    const kept = result.messages.slice(2);
    expect(kept.filter((m) => m.role === "user" || m.role === "assistant")).toHaveLength(20);
    expect(kept).toEqual(big.slice(-kept.length));
    expect(validateConversation(result.messages)).toEqual([]);
  });

  it("rejects bad options", () => {
    expect(() => new SimpleCompaction({ keepRecent: -1 })).toThrow(CompactionError);
  });

  it("honours the abort signal", async () => {
    const controller = new AbortController();
    controller.abort();
    const provider = new ScriptedChatProvider(["text: never"]);
    await expect(new SimpleCompaction().compact(history(3), { provider, signal: controller.signal })).rejects.toThrow();
  });
});

/**
 * A bad summary never wipes the conversation nor throws (issue 15 item 12,
 * issue 16 item 5): each shape gives the extractive summary, which keeps the
 * user's requests, with a note saying why.
 */
describe("a bad summary in the summarising strategies", () => {
  const shapes: Array<[string, () => ScriptedChatProvider | MockChatProvider | undefined, RegExp]> = [
    ["no provider", () => undefined, /No provider: extractive summary|Extractive summary \(no provider\)/],
    ["an empty response", () => new MockChatProvider([]), /unusable \(the model failed: The API returned an empty response/],
    ["only whitespace", () => new MockChatProvider([textPart(" \n\t  \n")]), /unusable \(it was blank\)/],
    ["only thinking", () => new MockChatProvider([{ type: "think", think: "hmm" }]), /unusable/],
    ["only a tool call", () => new ScriptedChatProvider(['tool_call: {"id": "t1", "name": "Shell", "arguments": "{}"}']), /unusable \(it answered with tool calls only\)/],
    ["an error-like text", () => new MockChatProvider([textPart("Error: context too long")]), /unusable \(it reads like an error or a refusal\)/],
    ["an acknowledgement", () => new MockChatProvider([textPart("Sure, here it is.")]), /unusable \(it is only an acknowledgement\)/],
    ["a failing model", () => new ScriptedChatProvider(["error: 500 boom"]), /unusable \(the model failed: .*boom/],
  ];
  const strategies: Array<[string, () => SimpleCompaction | SmartCompaction]> = [
    ["simple", () => new SimpleCompaction()],
    ["simple with a budget", () => new SimpleCompaction({ maxTokens: 200 })],
    ["smart", () => new SmartCompaction({ maxTokens: 200 })],
  ];
  for (const [strategyName, make] of strategies) {
    it.each(shapes)(`${strategyName}: %s gives the extractive summary with a note`, async (_, provider, note) => {
      const input = history(6);
      const result = await make().compact(input, { provider: provider() });
      expect(validateConversation(result.messages)).toEqual([]);
      const text = result.messages.map((m) => extractText(m, "\n")).join("\n");
      for (const request of ["request 0", "request 3"]) expect(text).toContain(request);
      expect(result.messages.at(-1)).toEqual(input.at(-1));
      expect(result.details?.summarized).toBe(true);
      expect(result.details?.notes.join(" ")).toMatch(note);
    });
  }
});
