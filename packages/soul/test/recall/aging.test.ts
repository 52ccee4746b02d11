/**
 * Tool-result aging through the soul: when an automatic compaction is due,
 * the oldest large tool outputs are replaced by an excerpt and a recall
 * pointer first, without a model call; when that makes enough room no full
 * compaction runs. The model reads the pointer in the output, the user gets
 * a CompactionBegin/End of strategy `tool-result-aging` with a note; before
 * the trigger nothing changes (the provider's prefix stays the same).
 */
import { extractText } from "@kosong/core";
import { Recall } from "@kosong/soul/recall";
import { describe, expect, it } from "vitest";
import { call, collect, ofType, testSoul } from "../soul/helpers.js";
import { bigFile, keepLast, readFileTool, resultOf } from "./helpers.js";

const usage = (input: number) => `usage: {"input_other": ${input}, "output": 1}`;
const files = Object.fromEntries(["a", "b", "c", "d"].map((name) => [`${name}.ts`, bigFile(200, `export const MARK_${name.toUpperCase()} = "${name}-marker";`)]));

describe("tool-result aging", () => {
  it("ages the oldest large outputs at the trigger instead of compacting; Recall brings one back whole", async () => {
    const { strategy, seen } = keepLast(2);
    const { soul, context, provider } = await testSoul({
      tools: [readFileTool(files), Recall],
      compaction: strategy,
      config: { maxContextSize: 20_000, reservedContextSize: 1000, compactionTriggerRatio: 0.5, toolResultAging: { minTokens: 300, keepRecent: 1 } },
      scripts: [
        `${call("a", "ReadFile", { path: "a.ts" })}\n${usage(500)}`,
        `${call("b", "ReadFile", { path: "b.ts" })}\n${usage(2500)}`,
        `${call("c", "ReadFile", { path: "c.ts" })}\n${usage(4500)}`,
        `${call("d", "ReadFile", { path: "d.ts" })}\n${usage(9000)}`,
        (history) => call("r", "Recall", { pointer: /Recall (r\d+:\d+)/.exec(history.map((m) => extractText(m)).join("\n"))![1] }),
        "text: MARK_A is a-marker",
      ],
    });
    const { events } = await collect(soul.run("read the four files"));

    // Before the trigger every request carried the outputs whole.
    expect(provider.calls[3]!.history.map((m) => extractText(m)).join("\n")).toContain("MARK_A");
    expect(ofType(events, "CompactionBegin").map((e) => e.payload)).toEqual([{ reason: "auto", strategy: "tool-result-aging" }]);
    expect(seen).toEqual([]);
    const notes = ofType(events, "CompactionEnd")[0]!.payload.details!.notes.join("\n");
    expect(notes).toMatch(/^Aged \d old tool outputs? \(about \d+ tokens\) into excerpts; Recall brings them back \(r1:\d+/);
    const aged = resultOf(context.history, "a");
    expect(aged).toMatch(/^<system>Old tool output aged out of the context \(\d+ tokens\): its start and end follow; Recall r1:\d+ brings back the whole\.<\/system>/);
    expect(aged).not.toContain("MARK_A");
    expect(resultOf(context.history, "d")).toBe(files["d.ts"]);
    expect(resultOf(context.history, "r")).toContain('export const MARK_A = "a-marker";');
    expect(context.history.at(-1)).toMatchObject({ role: "assistant" });
  });

  it("runs the full compaction when aging cannot make enough room, and never ages without Recall", async () => {
    const run = async (tools: Parameters<typeof readFileTool>[0], withRecall: boolean) => {
      const { strategy, seen } = keepLast(2);
      const { soul } = await testSoul({
        tools: withRecall ? [readFileTool(tools), Recall] : [readFileTool(tools)],
        compaction: strategy,
        config: { maxContextSize: 20_000, reservedContextSize: 1000, compactionTriggerRatio: 0.5, toolResultAging: { minTokens: 300, keepRecent: 1 } },
        scripts: [`${call("a", "ReadFile", { path: "a.ts" })}\n${usage(1000)}`, `${call("b", "ReadFile", { path: "b.ts" })}\n${usage(12_000)}`, "text: done"],
      });
      const { events } = await collect(soul.run("read"));
      return { strategies: ofType(events, "CompactionBegin").map((e) => e.payload.strategy), seen };
    };
    expect((await run(files, true)).strategies).toEqual(["keep-last"]);
    expect((await run(files, false)).strategies).toEqual(["keep-last"]);
  });
});
