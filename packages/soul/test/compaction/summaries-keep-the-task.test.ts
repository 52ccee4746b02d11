import { type ChatProvider, textPart, userMessage, assistantMessage, type Message } from "@kosong/core";
import { MockChatProvider, ScriptedChatProvider } from "@kosong/core/testing";
import { AUTO_SUMMARY_SECTIONS, AutoCompaction, type Compaction, SimpleCompaction, SmartCompaction } from "@kosong/soul/compaction";
import { validateConversation } from "@kosong/soul/conversation";
import { estimateTokens } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";
import { allText, prose, toolRound } from "./helpers/histories.js";

/** A long task statement (an issue pasted in), two later requests, and many tool rounds between them. */
function session(): { history: Message[]; requests: string[] } {
  const task = [
    "Fix the CSV importer: quoted fields that contain a newline are split into two rows.",
    "Steps to reproduce:",
    ...Array.from({ length: 40 }, (_, i) => `  row ${i}: "name ${i}","line one of note ${i}\\nline two of note ${i}",${1000 + i}`),
    "Expected: one row per record. Keep the public API of importCsv unchanged and do not add dependencies.",
  ].join("\n");
  const later = ["Also keep the error messages in English.", "Now run the whole test suite, not only the importer's tests."];
  const history: Message[] = [userMessage(task)];
  for (let i = 0; i < 30; i++) {
    if (i === 10) history.push(userMessage(later[0]!));
    if (i === 20) history.push(userMessage(later[1]!));
    history.push(...toolRound(`c${i}`, "Read", `/repo/src/importer/part${i}.ts`, prose(150, `p${i}x`)));
  }
  history.push(assistantMessage("The importer splits on every newline before it parses quotes; next I fix splitRows."));
  return { history, requests: [task, ...later] };
}

/** What a model that summarises without care for details writes. */
const generic = "The user asked to fix a bug in the importer. The assistant read the source files. Next: fix it.";
/** A structured summary with every section AutoCompaction asks for, and not one word of the task. */
const structured = AUTO_SUMMARY_SECTIONS.map((section) => `## ${section}\nThe importer was studied.`).join("\n\n");

describe("summaries keep the user's requests verbatim (the first in full)", () => {
  const { history, requests } = session();
  const maxTokens = Math.floor(estimateTokens(history) * 0.3);
  const cases: Array<[string, () => Compaction, () => ChatProvider | undefined]> = [
    ["auto, the summariser failing (its fallback)", () => new AutoCompaction({ maxTokens }), () => new ScriptedChatProvider([])],
    ["auto, a structured summary without the task", () => new AutoCompaction({ maxTokens }), () => new MockChatProvider([textPart(structured)])],
    ["smart, no model", () => new SmartCompaction({ maxTokens }), () => undefined],
    ["smart, a generic model summary", () => new SmartCompaction({ maxTokens }), () => new MockChatProvider([textPart(generic)])],
    ["simple, a generic model summary", () => new SimpleCompaction(), () => new MockChatProvider([textPart(generic)])],
    ["simple with a budget, a generic model summary", () => new SimpleCompaction({ maxTokens }), () => new MockChatProvider([textPart(generic)])],
    ["simple, no model", () => new SimpleCompaction(), () => undefined],
  ];

  it.each(cases)("%s", async (_, strategy, provider) => {
    const result = await strategy().compact(history, { provider: provider() });
    expect(validateConversation(result.messages)).toEqual([]);
    const text = allText(result.messages);
    for (const request of requests) expect(text).toContain(request);
    expect(estimateTokens(result.messages)).toBeLessThan(estimateTokens(history));
  });
});

describe("a model's summary is checked before it is accepted", () => {
  it("gets the working files it does not name, with excerpts of their lines, and a note says so", async () => {
    const history: Message[] = [userMessage("Make parseRows handle quoted newlines.")];
    const source = Array.from({ length: 60 }, (_, i) => (i === 41 ? "export function parseRows(text: string) { return text.split('\\n'); }" : `const filler${i} = ${i};`)).join("\n");
    history.push(...toolRound("c0", "Read", "/repo/src/importer/rows.ts", source));
    for (let i = 1; i < 12; i++) history.push(...toolRound(`c${i}`, "Read", `/repo/docs/page${i}.md`, prose(120, `d${i}x`)));
    history.push(assistantMessage("parseRows in src/importer/rows.ts splits before it looks at quotes; I will change it there."));
    const result = await new SimpleCompaction({ keepRecent: 1 }).compact(history, { provider: new MockChatProvider([textPart(generic)]) });
    const text = allText(result.messages);
    expect(text).toContain(generic);
    expect(text).toMatch(/Working files: \/repo\/src\/importer\/rows\.ts/);
    expect(text).toContain("export function parseRows(text: string) { return text.split('\\n'); }");
    expect(result.details!.notes.join("\n")).toMatch(/Added the working files the model's summary did not name/);
  });

  it("is refused when longer than the messages it replaces: the extractive summary instead, with a note", async () => {
    const { history, requests } = session();
    const long = prose(estimateTokens(history), "verbose");
    const result = await new SimpleCompaction().compact(history, { provider: new MockChatProvider([textPart(long)]) });
    const text = allText(result.messages);
    expect(text).not.toContain("verbose0");
    expect(text).toContain(requests[0]);
    expect(result.details!.notes.join("\n")).toMatch(/longer than the \d+ tokens of the messages it replaces; used the extractive summary/);
    expect(estimateTokens(result.messages)).toBeLessThan(estimateTokens(history));
  });

  it("is refused by auto too when longer than the messages it replaces: the extractive summary instead, with a note", async () => {
    const { history, requests } = session();
    const padding = prose(estimateTokens(history), "verbose");
    const long = AUTO_SUMMARY_SECTIONS.map((section, i) => `## ${section}\n${i === 0 ? padding : "The importer was studied."}`).join("\n\n");
    const maxTokens = Math.floor(estimateTokens(history) * 0.3);
    const result = await new AutoCompaction({ maxTokens }).compact(history, { provider: new MockChatProvider([textPart(long)]) });
    const text = allText(result.messages);
    expect(text).not.toContain("verbose0");
    expect(text).toContain(requests[0]);
    expect(result.details!.notes.join("\n")).toMatch(/longer than the \d+ tokens of the messages it replaces; used the extractive summary/);
    expect(estimateTokens(result.messages)).toBeLessThanOrEqual(maxTokens);
  });
});
