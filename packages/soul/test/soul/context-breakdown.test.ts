/**
 * `soul.status.breakdown`: the window broken down into the system prompt,
 * the project files in it, the tool definitions, messages, tool results,
 * summaries, the reserve and what is free, adding up to the provider's
 * count once there is one.
 */
import { defineTool, SimpleToolset } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { MemoryContextLog } from "@kosong/context";
import { Context, Soul } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, collect, noWait } from "./helpers.js";

const project = `# Project context\n\n${"The build uses pnpm and vitest. ".repeat(40)}`;
const lookup = defineTool({
  name: "Lookup",
  description: "Looks a word up in a dictionary that has a rather long description. ".repeat(8),
  parameters: z.object({ word: z.string().describe("The word.") }),
  async execute() {
    return "a definition ".repeat(200);
  },
});

async function soulWith(scripts: string[]) {
  const context = new Context(new MemoryContextLog());
  await context.restore();
  const soul = new Soul({
    agent: { name: "t", systemPrompt: `You help.\n\n${project}`, projectContext: project, toolset: new SimpleToolset([lookup]) },
    provider: new ScriptedChatProvider(scripts),
    context,
    // Keeps every range whole: a range compaction then writes an extractive summary.
    compaction: { name: "keep-all", compact: async (history) => ({ messages: [...history], usage: null }) },
    config: { retry: noWait, maxContextSize: 10_000, reservedContextSize: 1000, compactionTriggerRatio: 0.6 },
  });
  return { soul, context };
}

describe("the context breakdown", () => {
  it("names each part of the window, adds up to the provider's count, and counts summaries apart", async () => {
    const { soul } = await soulWith([call("l1", "Lookup", { word: "x" }), 'text: it means y\nusage: {"input_other": 2000, "output": 5}', "text: later"]);
    const empty = soul.status.breakdown;
    expect(empty).toMatchObject({ messages: 0, toolResults: 0, summaries: 0, window: 10_000, reserve: 1000, threshold: 6000 });
    expect(empty.projectFiles).toBeGreaterThan(200);
    expect(empty.systemPrompt).toBeLessThan(10);
    expect(empty.tools).toBeGreaterThan(100);

    await collect(soul.run("what does x mean?"));
    const after = soul.status.breakdown;
    expect(after.used).toBe(soul.status.contextTokens);
    expect(after.toolResults).toBeGreaterThan(after.messages);
    expect(after.summaries).toBe(0);
    expect(after.free).toBe(10_000 - after.used - 1000);
    const { systemPrompt, projectFiles, tools, messages, toolResults, summaries } = after;
    expect(systemPrompt + projectFiles + tools + messages + toolResults + summaries).toBe(after.used);

    await collect(soul.run("and then?"));
    await collect(soul.compact({ from: 0, to: 2 }));
    expect(soul.status.breakdown.summaries).toBeGreaterThan(0);
  });

  it("gives the breakdown of the moment status was read, even when read after a turn", async () => {
    const { soul } = await soulWith([call("l1", "Lookup", { word: "x" }), "text: it means y", "text: later"]);
    const before = soul.status;
    await collect(soul.run("what does x mean?"));
    const after = soul.status.breakdown;
    expect(after.toolResults).toBeGreaterThan(0);
    // Read only now, after the turn: still the empty conversation it was read in.
    expect(before.breakdown).toMatchObject({ messages: 0, toolResults: 0 });
    expect(before.breakdown).toBe(before.breakdown);
    expect(JSON.parse(JSON.stringify(before))).toMatchObject({ breakdown: { messages: 0, toolResults: 0 } });
  });
});
