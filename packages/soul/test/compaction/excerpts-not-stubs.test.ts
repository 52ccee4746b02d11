/**
 * Excerpts, not stubs (issue 27, Build 3): a test run too big to keep is cut
 * to an excerpt that keeps its failing lines whole, and the identifier index
 * takes about 5 % of the budget at most, whatever the dropped messages name.
 */
import { assistantMessage, type Message, toolCall, toolMessage, userMessage } from "@kosong/core";
import { isToolOutputStub, PreserveImportantCompaction } from "@kosong/soul/compaction";
import { estimateTokens } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";
import { allText, expectValidWithin } from "./helpers/histories.js";

const shell = (id: string, command: string, output: string, text = ""): Message[] => [
  assistantMessage(text, [toolCall(id, "bash", { command })]),
  toolMessage(id, output),
];

const FAILURE = "FAILED tests/test_ledger.py::test_rounding_of_negative_amounts - AssertionError: assert Decimal('-0.01') == Decimal('0.00')";

describe("a bulky test run becomes an excerpt", () => {
  it("that keeps a failing test line whole, even when it names nothing the recent messages work on", async () => {
    const passed = (from: number, n: number): string[] => Array.from({ length: n }, (_, i) => `tests/test_ledger.py::test_case_number_${from + i} PASSED`);
    const run = [...passed(0, 70), FAILURE, ...passed(70, 70), "1 failed, 140 passed in 3.21s"].join("\n");
    const input: Message[] = [
      userMessage("Make the ledger totals right."),
      ...shell("t1", "python -m pytest tests/test_ledger.py", run, "Running the ledger tests."),
      ...Array.from({ length: 4 }, (_, i) => shell(`r${i}`, `cat src/report_${i}.txt`, `report ${i}: nothing to see here`)).flat(),
      userMessage("Keep going."),
      assistantMessage("Looking at the totals next."),
    ];
    const maxTokens = Math.floor(estimateTokens(input) * 0.5);
    const result = await new PreserveImportantCompaction({ maxTokens, keepRecent: 2, indexShare: 0, bulkyToolOutputTokens: 100 }).compact(input);
    expectValidWithin(result, maxTokens);
    const output = result.messages.find((m) => m.role === "tool" && m.tool_call_id === "t1");
    expect(output).toBeDefined();
    expect(isToolOutputStub(output!)).toBe(false);
    const text = allText([output!]);
    expect(text).toMatch(/^\[excerpt: \d+ of \d+ lines/);
    expect(text.split("\n")).toContain(FAILURE);
  });
});

describe("the identifier index", () => {
  it("takes about 5 % of the budget at most, though the removed messages name far more", async () => {
    const names = (i: number): string => Array.from({ length: 12 }, (_, k) => `pkg_${i}/module_${k}.py:Class${i}x${k}.method_${k}`).join(" ");
    const input: Message[] = [
      userMessage("Survey the packages."),
      ...Array.from({ length: 60 }, (_, i) => shell(`s${i}`, `ls pkg_${i}`, names(i), `Package ${i} next.`)).flat(),
      userMessage("Summarise what you found."),
      assistantMessage("Here is what I found."),
    ];
    const maxTokens = Math.floor(estimateTokens(input) * 0.3);
    const result = await new PreserveImportantCompaction({ maxTokens, keepRecent: 2 }).compact(input);
    expectValidWithin(result, maxTokens);
    const notice = allText([result.messages[0]!]);
    const index = notice.slice(notice.indexOf("## Identifiers in the removed messages"));
    expect(index.length).toBeGreaterThan(40);
    // The index section in tokens, against 5 % of the budget (a few tokens of slack for its title and the closing tag).
    expect(estimateTokens([userMessage(index)])).toBeLessThanOrEqual(Math.ceil(maxTokens * 0.05) + 24);
  });
});
