/**
 * Aborting a turn: while the model streams nothing is appended; while tools
 * run the assistant message stays with an interrupted result for every
 * unfinished call; either way the context restores to the same history and
 * the next turn runs.
 */
import { copyFile } from "node:fs/promises";
import { defineTool, toolOk } from "@kosong/core";
import { Context } from "@kosong/soul";
import { TOOL_INTERRUPTED_MESSAGE } from "@kosong/soul/internal";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, outline, script, testSoul } from "./helpers.js";

/** Returns after a macrotask, when the (in-memory, undelayed) stream has long ended. */
const quick = defineTool({
  name: "quick",
  description: "Returns soon.",
  parameters: z.object({}),
  execute: async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    return toolOk("quick done");
  },
});

/** Runs until its call is cancelled. */
const slow = defineTool({
  name: "slow",
  description: "Never finishes on its own.",
  parameters: z.object({}),
  execute: (_params, { signal }) =>
    new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true })),
});

describe("aborting a turn", () => {
  it("appends nothing of a step whose stream is cut by the abort", async () => {
    const { soul, context } = await testSoul({
      scripts: ["text: a long answer that streams slowly", "text: next turn"],
      streaming: { chunkSize: 2, delayMs: 5 },
    });
    const controller = new AbortController();
    const turn = soul.run("hi", { signal: controller.signal });
    const seen: string[] = [];
    for await (const event of turn) {
      seen.push(event.type);
      if (event.type === "TextPart") controller.abort();
    }
    const result = await turn.result;
    expect(result).toMatchObject({ stopReason: "aborted", steps: 1 });
    expect(result.error).toBeUndefined();
    expect(seen.slice(-2)).toEqual(["StepInterrupted", "TurnEnd"]);
    expect(outline(context)).toEqual(["user:hi"]);
    // The step's checkpoint, announced before the model answered, is written without the rest of the step.
    expect(context.checkpoints.map((c) => c.id)).toEqual([0, 1]);

    const next = await soul.run("again").result;
    expect(next.stopReason).toBe("no_tool_calls");
    expect(outline(context)).toEqual(["user:hi", "user:again", "assistant:next turn"]);
  });

  it("keeps the assistant message with interrupted results when tools are running", async () => {
    const { soul, context, file } = await testSoul({
      onDisk: true,
      tools: [quick, slow],
      scripts: [script("text: working", call("c1", "quick"), call("c2", "slow")), "text: recovered"],
    });
    const controller = new AbortController();
    const turn = soul.run("go", { signal: controller.signal });
    const seen: string[] = [];
    const results: Record<string, string> = {};
    for await (const event of turn) {
      seen.push(event.type);
      if (event.type !== "ToolResult") continue;
      results[event.payload.tool_call_id] = event.payload.return_value.message || String(event.payload.return_value.output);
      if (event.payload.tool_call_id === "c1") controller.abort();
    }
    // The events say what the model will read.
    expect(results).toEqual({ c1: "quick done", c2: TOOL_INTERRUPTED_MESSAGE });
    expect((await turn.result).stopReason).toBe("aborted");
    expect(seen).toContain("StatusUpdate");
    expect(outline(context)).toEqual([
      "user:go",
      "assistant:working+calls(c1,c2)",
      "tool[c1]:quick done",
      `tool[c2]:<system>ERROR: ${TOOL_INTERRUPTED_MESSAGE}</system>`,
    ]);

    // What a crash now would leave: a copy of the file restores to the same history.
    const copy = `${file!}.copy.jsonl`;
    await copyFile(file!, copy);
    const reread = new Context(copy);
    await reread.restore();
    expect(reread.history).toEqual(context.history);
    await reread.close();

    expect((await soul.run("continue").result).stopReason).toBe("no_tool_calls");
    expect(outline(context).at(-1)).toBe("assistant:recovered");
  });

  it("does not wait past cancelGraceMs for a tool that ignores its signal, whatever the abort reason", async () => {
    const stubborn = defineTool({ name: "stubborn", description: "Ignores cancellation.", parameters: z.object({}), execute: () => new Promise<string>(() => {}) });
    const { soul, context } = await testSoul({ tools: [quick, stubborn], config: { cancelGraceMs: 10 }, scripts: [script(call("c1", "quick"), call("c2", "stubborn"))] });
    const controller = new AbortController();
    const turn = soul.run("go", { signal: controller.signal });
    for await (const event of turn) if (event.type === "ToolResult") controller.abort("the user pressed Ctrl-C");
    expect((await turn.result).stopReason).toBe("aborted");
    expect(outline(context).slice(-2)).toEqual(["tool[c1]:quick done", `tool[c2]:<system>ERROR: ${TOOL_INTERRUPTED_MESSAGE}</system>`]);
  });

  it("ends at once when aborted before it starts a step", async () => {
    const { soul, provider } = await testSoul({ scripts: ["text: never"] });
    const controller = new AbortController();
    controller.abort();
    const result = await soul.run("hi", { signal: controller.signal }).result;
    expect(result).toMatchObject({ stopReason: "aborted", steps: 0 });
    expect(provider.calls).toHaveLength(0);
  });
});
