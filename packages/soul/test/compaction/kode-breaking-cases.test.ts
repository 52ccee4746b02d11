/**
 * The histories that break Kode-cli's retention strategies (message counts,
 * `slice(-n)` through tool pairs), run through every strategy: the output
 * is valid, within a budget counted in real tokens, and keeps what the case
 * is about.
 */
import { assistantMessage, type Message, textPart, toolCall, toolMessage, userMessage } from "@kosong/core";
import { MockChatProvider } from "@kosong/core/testing";
import { type Compaction } from "@kosong/soul";
import { AUTO_SUMMARY_SECTIONS, AutoCompaction, type CompactionOptions, PreserveImportantCompaction, PreserveRecentCompaction, SimpleCompaction, SmartCompaction } from "@kosong/soul/compaction";
import { estimateTokens } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";
import { allText, expectValidWithin, prose, toolRound } from "./helpers/histories.js";

const summary = AUTO_SUMMARY_SECTIONS.map((s) => `## ${s}\nNone.`).join("\n");
const strategies: Array<[string, (maxTokens: number) => Compaction, CompactionOptions]> = [
  ["simple", (maxTokens) => new SimpleCompaction({ maxTokens }), { provider: new MockChatProvider([textPart("Summary.")]) }],
  ["preserve-recent", (maxTokens) => new PreserveRecentCompaction({ maxTokens }), {}],
  ["preserve-important", (maxTokens) => new PreserveImportantCompaction({ maxTokens }), {}],
  ["smart", (maxTokens) => new SmartCompaction({ maxTokens }), {}],
  ["auto", (maxTokens) => new AutoCompaction({ maxTokens }), { provider: new MockChatProvider([textPart(summary)]) }],
];

const cases: Array<[string, Message[], number, (output: Message[]) => void]> = [
  [
    "a tool pair across the cut (three parallel calls, results in another order)",
    [
      userMessage("inspect the three files"),
      ...toolRound("a0", "Read", "/x", prose(300)),
      assistantMessage("", [toolCall("p1", "Read", { path: "/p1" }), toolCall("p2", "Read", { path: "/p2" }), toolCall("p3", "Read", { path: "/p3" })]),
      toolMessage("p3", prose(120, "three")),
      toolMessage("p1", prose(120, "one")),
      toolMessage("p2", prose(120, "two")),
      assistantMessage("All three read."),
    ],
    420,
    (output) => expect(output.filter((m) => m.role === "tool" && m.tool_call_id?.startsWith("p")).length % 3).toBe(0),
  ],
  [
    "a history of only tool rounds",
    [userMessage("go"), ...Array.from({ length: 20 }, (_, i) => toolRound(`c${i}`, "Shell", "/", prose(80, `r${i}x`))).flat()],
    600,
    (output) => expect(output.some((m) => m.role === "tool")).toBe(true),
  ],
  [
    "fewer messages than any recent count, over budget",
    [userMessage(prose(1500, "ask")), assistantMessage(prose(1500, "answer"))],
    500,
    (output) => expect(allText(output.slice(-1)).startsWith("answer0 answer1")).toBe(true),
  ],
  [
    "one huge tool output",
    [userMessage("read the dump"), ...toolRound("d", "Read", "/dump.json", prose(40_000, "blob")), assistantMessage("It is big.")],
    800,
    (output) => expect(allText(output)).not.toContain(prose(2000, "blob")),
  ],
  [
    "a CJK-only history",
    Array.from({ length: 25 }, (_, i) => [userMessage(`第${i}步：请修复解析器中的错误，并保持公共接口不变。`), ...toolRound(`z${i}`, "Read", `/源码/文件${i}.ts`, "函数定义和注释内容。".repeat(60)), assistantMessage("已修复，测试全部通过。")]).flat(),
    1200,
    (output) => expect(allText(output)).toMatch(/[\u4e00-\u9fff]/),
  ],
];

describe.each(strategies)("%s on the cases that break Kode-cli", (_, make, options) => {
  it.each(cases)("%s", async (_case, history, maxTokens, check) => {
    expect(estimateTokens(history)).toBeGreaterThan(maxTokens);
    const result = await make(maxTokens).compact(history, options);
    expectValidWithin(result, maxTokens);
    check(result.messages);
  });
});
