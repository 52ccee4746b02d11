import { assistantMessage, systemMessage, thinkPart, toolCall, toolMessage, userMessage } from "@kosong/core";
import { conversationBlocks, repairConversation, validateConversation } from "@kosong/soul/conversation";
import { describe, expect, it } from "vitest";

const call = (id: string) => toolCall(id, "Shell", { command: "ls" });

describe("validateConversation", () => {
  it("accepts a conversation with parallel tool calls answered in any order", () => {
    const messages = [
      systemMessage("sys"),
      userMessage("list files"),
      assistantMessage("", [call("a"), call("b")]),
      toolMessage("b", "x"),
      toolMessage("a", "y"),
      assistantMessage("done"),
      userMessage("thanks"),
      userMessage("and more"),
    ];
    expect(validateConversation(messages)).toEqual([]);
  });

  it("finds a result without its call, a call without its result, and a duplicate", () => {
    const messages = [
      userMessage("go"),
      toolMessage("ghost", "?"),
      assistantMessage("", [call("a"), call("b")]),
      toolMessage("a", "1"),
      toolMessage("a", "again"),
      assistantMessage("ok"),
    ];
    const kinds = validateConversation(messages).map((v) => [v.kind, v.index, v.toolCallId]);
    expect(kinds).toEqual([
      ["orphan-tool-result", 1, "ghost"],
      ["missing-tool-result", 2, "b"],
      ["duplicate-tool-result", 4, "a"],
    ]);
  });

  it("finds a result that is not right after its call", () => {
    const messages = [userMessage("go"), assistantMessage("", [call("a")]), userMessage("wait"), toolMessage("a", "late")];
    expect(validateConversation(messages).map((v) => v.kind)).toEqual(["missing-tool-result", "misplaced-tool-result"]);
  });

  it("finds a history that starts with an assistant or tool message after the system prompt", () => {
    expect(validateConversation([systemMessage("s"), assistantMessage("hi")]).map((v) => v.kind)).toEqual(["starts-with-non-user"]);
    expect(validateConversation([toolMessage("a", "x"), userMessage("u")]).map((v) => v.kind)).toEqual([
      "starts-with-non-user",
      "orphan-tool-result",
    ]);
  });

  it("finds empty messages but not think-only or call-only ones", () => {
    const messages = [
      userMessage(""),
      userMessage("real"),
      assistantMessage([thinkPart("hmm")]),
      assistantMessage("", [call("a")]),
      toolMessage("a", ""),
      assistantMessage("  "),
    ];
    expect(validateConversation(messages).map((v) => [v.kind, v.index])).toEqual([
      ["empty-message", 0],
      ["empty-message", 5],
    ]);
  });

  it("reports consecutive user messages only when alternation is required", () => {
    const messages = [userMessage("a"), userMessage("b"), assistantMessage("c")];
    expect(validateConversation(messages)).toEqual([]);
    expect(validateConversation(messages, { requireAlternation: true }).map((v) => [v.kind, v.index])).toEqual([["consecutive-user", 1]]);
  });
});

describe("repairConversation", () => {
  it("returns a valid conversation unchanged", () => {
    const messages = [userMessage("go"), assistantMessage("", [call("a"), call("b")]), toolMessage("b", "1"), toolMessage("a", "2")];
    const repair = repairConversation(messages);
    expect(repair.violations).toEqual([]);
    expect(repair.messages).toEqual(messages);
  });

  it("drops orphans and duplicates, answers unanswered calls with an error, moves misplaced results", () => {
    const late = toolMessage("a", "late result");
    const messages = [
      toolMessage("ghost", "?"),
      userMessage("go"),
      assistantMessage("", [call("a"), call("b")]),
      userMessage("interjection"),
      late,
      toolMessage("a", "duplicate"),
      assistantMessage("", [call("c")]),
    ];
    const repair = repairConversation(messages);
    expect(validateConversation(repair.messages)).toEqual([]);
    expect(repair.violations.length).toBeGreaterThan(0);
    expect(repair.messages.map((m) => [m.role, m.tool_call_id])).toEqual([
      ["user", undefined],
      ["assistant", undefined],
      ["tool", "a"],
      ["tool", "b"],
      ["user", undefined],
      ["assistant", undefined],
      ["tool", "c"],
    ]);
    expect(repair.messages[2]).toBe(late);
    expect(JSON.stringify(repair.messages[3]!.content)).toContain("ERROR");
  });

  it("puts a user message before a leading assistant message and merges users when asked", () => {
    const repair = repairConversation([systemMessage("s"), assistantMessage("hello"), userMessage("a"), userMessage("b")], {
      requireAlternation: true,
    });
    expect(repair.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(repair.messages[3]!.content.map((p) => (p.type === "text" ? p.text : ""))).toEqual(["a", "\n\n", "b"]);
    expect(validateConversation(repair.messages, { requireAlternation: true })).toEqual([]);
  });

  it("never mutates its input", () => {
    const messages = [assistantMessage("", [call("a")]), userMessage("x")];
    const copy = structuredClone(messages);
    repairConversation(messages, { requireAlternation: true });
    expect(messages).toEqual(copy);
  });
});

describe("conversationBlocks", () => {
  it("groups an assistant message with the tool results after it, everything else alone", () => {
    const messages = [
      systemMessage("s"),
      userMessage("u"),
      assistantMessage("", [call("a"), call("b")]),
      toolMessage("b", "1"),
      toolMessage("a", "2"),
      assistantMessage("done"),
      toolMessage("stray", "?"),
    ];
    expect(conversationBlocks(messages)).toEqual([
      { start: 0, end: 1, role: "system" },
      { start: 1, end: 2, role: "user" },
      { start: 2, end: 5, role: "assistant" },
      { start: 5, end: 7, role: "assistant" },
    ]);
    expect(conversationBlocks([toolMessage("x", "?"), userMessage("u")])).toEqual([
      { start: 0, end: 1, role: "tool" },
      { start: 1, end: 2, role: "user" },
    ]);
  });
});
