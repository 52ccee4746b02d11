/**
 * A summary's excerpts hold content, not a tool's frame: mini-swe-agent
 * wraps every output in `<returncode>0</returncode>` and `<output>…</output>`
 * lines, which an excerpt would otherwise repeat for each output it keeps.
 */
import { assistantMessage, toolCall, toolMessage, userMessage, type Message } from "@kosong/core";
import { extractiveSummary } from "@kosong/soul/compaction";
import { o200kTokenizer } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";

/** A shell round whose output is framed as mini-swe-agent frames it. */
function framed(id: string, command: string, code: number, output: string, end = ""): Message[] {
  return [assistantMessage("", [toolCall(id, "bash", { command })]), toolMessage(id, `<returncode>${code}</returncode>\n<output>\n${output}\n</output>${end}`)];
}

/** No line of `summary` is a frame line: a zero return code, `<output>` or `</output>`. */
function expectNoFrame(summary: string): void {
  const lines = summary.split("\n").map((line) => line.trim());
  for (const frame of ["<returncode>0</returncode>", "<output>", "</output>"]) expect(lines).not.toContain(frame);
}

describe("summary excerpts without the tool's frame", () => {
  it("keeps the lines of framed outputs about the working file, without the frame lines, and a nonzero return code", () => {
    const messages: Message[] = [
      userMessage("Fix resolve_order() in src/compiler.py."),
      ...framed("a", "sed -n '100,103p' src/compiler.py", 0, ["    def resolve_order(self, name):", "        order = self.lookup(name)", "        return order"].join("\n")),
      ...framed("b", "python -m pytest tests/test_compiler.py -q", 1, "FAILED tests/test_compiler.py::test_resolve_order - KeyError: 'order' in resolve_order"),
    ];
    const kept = [assistantMessage("Next I edit resolve_order in src/compiler.py.")];
    const summary = extractiveSummary(messages, { maxTokens: 2000, tokenizer: o200kTokenizer, kept });
    expect(summary).toContain("def resolve_order(self, name):\n        order = self.lookup(name)");
    expect(summary).toContain("<returncode>1</returncode>");
    expectNoFrame(summary);
  });

  it("keeps the lone tags of a markup file's view: they are the file's lines, not the tool's frame", () => {
    const view = ["<template>", "  <div class=\"card\">", "    <CardTitle :title=\"title\" />", "  </div>", "</template>"].join("\n");
    // The output ends with a newline, as a tool's often does: the frame's closing line is the last but one.
    const messages: Message[] = [userMessage("Fix the title of CardView in src/CardView.vue."), ...framed("a", "cat src/CardView.vue", 0, view, "\n")];
    const kept = [assistantMessage("Next I edit CardTitle in src/CardView.vue.")];
    const summary = extractiveSummary(messages, { maxTokens: 2000, tokenizer: o200kTokenizer, kept });
    expect(summary).toContain(view);
    expectNoFrame(summary);
  });
});
