/**
 * A tool output condensed at compaction time (its lines shown again by a
 * newer output) is a replaced range like any other: the pointer notice names
 * it and `Recall` brings its full text back from the rotation.
 */
import { defineTool, extractText } from "@kosong/core";
import type { Compaction } from "@kosong/soul";
import { PreserveImportantCompaction } from "@kosong/soul/compaction";
import { Recall } from "@kosong/soul/recall";
import { estimateTokens } from "@kosong/soul/tokens";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { call, collect, ofType, testSoul } from "../soul/helpers.js";
import { firstPointer, resultOf } from "./helpers.js";

/** A verbose test run whose last line differs between runs. */
const run = (seconds: string): string =>
  [...Array.from({ length: 60 }, (_, i) => `tests/test_orders.py::test_order_case_${i} PASSED`), `60 passed in ${seconds}s`].join("\n");

describe.each([
  ["in memory", false],
  ["on a context.jsonl", true],
])("Recall of a condensed output (%s)", (_, onDisk) => {
  it("brings back the lines the compaction condensed because a newer output shows them again", async () => {
    let seconds = ["0.31", "0.29"];
    const shell = defineTool({
      name: "bash",
      description: "Runs a command.",
      parameters: z.object({ command: z.string() }),
      async execute() {
        const output = run(seconds[0]!);
        seconds = seconds.slice(1);
        return output;
      },
    });
    // Preserve-important a little under the history's size: condensing the older run is enough to fit.
    const strategy: Compaction = {
      name: "preserve-important",
      compact: (history, options) => new PreserveImportantCompaction({ maxTokens: estimateTokens(history) - 120, keepRecent: 2 }).compact(history, options),
    };
    const { soul, context } = await testSoul({
      onDisk,
      tools: [shell, Recall],
      compaction: strategy,
      scripts: [
        call("t1", "bash", { command: "python -m pytest tests -v" }),
        "text: all pass",
        call("t2", "bash", { command: "python -m pytest tests -v" }),
        "text: still pass",
        (history) => call("r1", "Recall", { pointer: firstPointer(history) }),
        "text: recalled",
      ],
    });
    await collect(soul.run("run the tests"));
    await collect(soul.run("run them again"));
    const { events } = await collect(soul.compact());
    const details = ofType(events, "CompactionEnd")[0]!.payload.details!;
    expect(details.condensed).toBe(1);
    expect(details.notes.join("\n")).toMatch(/1 tool output condensed/);
    const older = resultOf(context.history, "t1");
    expect(older).toMatch(/\[\.\.\. \d+ lines shown again in a later output \.\.\.\]/);
    expect(older).not.toContain("test_order_case_30 PASSED");
    expect(older).toContain("60 passed in 0.31s");

    await collect(soul.run("what did the first run print?"));
    const recalled = resultOf(context.history, "r1");
    expect(recalled).toContain("tests/test_orders.py::test_order_case_30 PASSED");
    expect(recalled).toContain("60 passed in 0.31s");
    expect(extractText(context.history.at(-1)!)).toBe("recalled");
  });
});
