import { assistantMessage, toolCall, toolMessage, userMessage, type Message } from "@kosong/core";
import { extractiveSummary } from "@kosong/soul/compaction";
import { o200kTokenizer } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";

/** Lines 100-106 of a file: each line distinct, so a view of some of them shows exactly those. */
const file = Array.from({ length: 7 }, (_, i) => `    order_${100 + i} = resolve(f_${100 + i})`);
const view = (from: number, to: number): string => file.slice(from - 100, to - 100 + 1).join("\n");

/** A sed view of `src/compiler.py` lines `from`-`to` as a tool round. */
function sedRound(id: string, from: number, to: number): Message[] {
  return [
    assistantMessage("", [toolCall(id, "bash", { command: `sed -n '${from},${to}p' src/compiler.py` })]),
    toolMessage(id, view(from, to)),
  ];
}

describe("summary excerpts keep the neighbours of a re-read fragment", () => {
  it("chooses an older wider view over a newer fragment of it, so the lines around the fragment stay together", () => {
    const messages: Message[] = [
      userMessage("Fix the ordering bug in src/compiler.py."),
      // Other outputs about the working file compete for the same room.
      ...Array.from({ length: 8 }, (_, k) => [
        assistantMessage("", [toolCall(`g${k}`, "bash", { command: `grep -n helper_${k} src/compiler.py` })]),
        toolMessage(`g${k}`, Array.from({ length: 6 }, (_, j) => `src/compiler.py:${300 + k * 20 + j}:    other_${k}_${j} = resolve(g_${k}_${j})`).join("\n")),
      ]).flat(),
      ...sedRound("wide", 100, 106),
      ...sedRound("narrow", 103, 104),
    ];
    const kept = [assistantMessage("Next I edit resolve in src/compiler.py, around order_103.")];
    const summary = extractiveSummary(messages, { maxTokens: 800, tokenizer: o200kTokenizer, kept });
    // The edit's old text runs past the re-read lines: 101-106 must be in the summary as one block.
    const lines = summary.split("\n").map((line) => line.replace(/^\d+\t/, "").trim());
    expect(lines.join("\n")).toContain(view(101, 106).split("\n").map((line) => line.trim()).join("\n"));
  });
});
