import { assistantMessage, toolCall, toolMessage, userMessage } from "@kosong/core";
import { CompactionError } from "@kosong/soul";
import { isToolOutputStub, PreserveRecentCompaction } from "@kosong/soul/compaction";
import { estimateTokens } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";
import { allText, expectValidWithin, prose, taskHistory, toolRound } from "./helpers/histories.js";

describe("PreserveRecentCompaction", () => {
  it("returns the conversation unchanged when it fits", async () => {
    const history = taskHistory(2);
    const result = await new PreserveRecentCompaction({ maxTokens: 100_000 }).compact(history);
    expect(result.messages).toEqual(history);
    expect(result.details).toMatchObject({ kept: history.length, dropped: 0, stubs: 0, withinBudget: true });
    expect(result.usage).toBeNull();
  });

  it("keeps the longest recent suffix that fits, behind a notice, never splitting a tool pair", async () => {
    const history = taskHistory(10);
    const total = estimateTokens(history);
    // a budget whose cut by message count would fall between a call and its result
    for (const maxTokens of [Math.floor(total * 0.3), Math.floor(total * 0.3) + 37, Math.floor(total * 0.55)]) {
      const result = await new PreserveRecentCompaction({ maxTokens }).compact(history);
      expectValidWithin(result, maxTokens);
      const [notice, ...kept] = result.messages;
      expect(allText([notice!])).toMatch(/^<system>\d+ earlier messages were removed to fit the context window.<\/system>$/);
      expect(kept).toEqual(history.slice(-kept.length));
      expect(kept[0]!.role).toBe("assistant");
      expect(result.details!.dropped).toBe(history.length - kept.length);
      // one more block would not have fit
      const longer = history.slice(-(kept.length + 2));
      expect(estimateTokens(longer) + estimateTokens([notice!])).toBeGreaterThan(maxTokens);
    }
  });

  it("handles a history of only tool rounds with parallel calls", async () => {
    const history = [userMessage("go")];
    for (let i = 0; i < 12; i++) {
      history.push(assistantMessage("", [toolCall(`a${i}`, "Grep", { q: "x" }), toolCall(`b${i}`, "Grep", { q: "y" })]));
      history.push(toolMessage(`b${i}`, prose(40)), toolMessage(`a${i}`, prose(40)));
    }
    const maxTokens = Math.floor(estimateTokens(history) / 4);
    const result = await new PreserveRecentCompaction({ maxTokens }).compact(history);
    expectValidWithin(result, maxTokens);
    expect(result.messages.filter((m) => m.role === "tool").length % 2).toBe(0);
  });

  it("cuts the texts of a last block that alone is over budget (fewer messages than any recent count)", async () => {
    const history = [userMessage("hi"), assistantMessage("hello"), userMessage(prose(3000, "pasted"))];
    const result = await new PreserveRecentCompaction({ maxTokens: 500 }).compact(history);
    expectValidWithin(result, 500);
    const last = allText(result.messages.slice(-1));
    expect(last).toContain("tokens cut ...]");
    expect(last.startsWith("pasted0 pasted1")).toBe(true);
    expect(last.endsWith("pasted9")).toBe(true);
  });

  it("stubs one huge tool output in the last block", async () => {
    const history = [userMessage("read it"), ...toolRound("c1", "Read", "/big.log", prose(20_000, "log"))];
    const result = await new PreserveRecentCompaction({ maxTokens: 300 }).compact(history);
    expectValidWithin(result, 300);
    const tool = result.messages.find((m) => m.role === "tool")!;
    expect(isToolOutputStub(tool)).toBe(true);
    expect(allText([tool])).toMatch(/^\[tool output elided: \d+ tokens\]$/);
    expect(result.details!.stubs).toBe(1);
  });

  it("counts CJK text in real tokens, not characters / 4", async () => {
    const history = [];
    for (let i = 0; i < 20; i++) history.push(userMessage(`第${i}个请求：请重构解析器并保留用户的约束。`.repeat(10)), assistantMessage("好的，已经完成了重构和测试。".repeat(10)));
    const maxTokens = 1000;
    const result = await new PreserveRecentCompaction({ maxTokens }).compact(history);
    expectValidWithin(result, maxTokens);
    expect(result.details!.dropped).toBeGreaterThan(20);
  });

  it("says so when even the notice does not fit", async () => {
    const result = await new PreserveRecentCompaction({ maxTokens: 3 }).compact(taskHistory(3));
    expect(result.details!.withinBudget).toBe(false);
    expect(result.details!.notes.join(" ")).toMatch(/cannot be met/);
    expect(result.messages).toHaveLength(1);
  });

  it("rejects a budget that is not a positive integer", () => {
    expect(() => new PreserveRecentCompaction({ maxTokens: 0 })).toThrow(CompactionError);
    expect(() => new PreserveRecentCompaction({ maxTokens: 1.5 })).toThrow(/maxTokens/);
  });
});
