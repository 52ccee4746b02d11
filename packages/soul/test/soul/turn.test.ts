/**
 * A turn as users see it: steps until the model stops calling tools, parallel
 * tools, what the context holds afterwards, the events in order, usage.
 */
import { defineTool, toolOk, type Message } from "@kosong/core";
import { Context, EmptyInputError } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, collect, outline, script, testSoul, types } from "./helpers.js";

/** Adds two numbers after `delayMs`, so parallel calls finish out of order. */
const add = defineTool({
  name: "add",
  description: "Adds two numbers.",
  parameters: z.object({ a: z.number(), b: z.number(), delayMs: z.number().default(0) }),
  execute: async ({ a, b, delayMs }) => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return toolOk(String(a + b));
  },
});

const lastText = (history: readonly Message[]) => history.at(-1)!.content.map((p) => (p.type === "text" ? p.text : "")).join("");

describe("a turn", () => {
  it("runs steps with parallel tools until the model answers without calling one", async () => {
    const { soul, context, provider } = await testSoul({
      tools: [add],
      scripts: [
        script("text: Let me add.", call("c1", "add", { a: 1, b: 2, delayMs: 30 }), call("c2", "add", { a: 10, b: 20 }), 'usage: {"input_other": 100, "output": 10}'),
        (history) => `text: The sums are ${lastText(history.slice(0, -1))} and ${lastText(history)}.\nusage: {"input_other": 150, "output": 8}`,
      ],
    });
    const { events, result } = await collect(soul.run("Add 1+2 and 10+20"));

    expect(result).toEqual({ stopReason: "no_tool_calls", steps: 2, usage: { input_other: 250, output: 18, input_cache_read: 0, input_cache_creation: 0 } });
    expect(outline(context)).toEqual([
      "user:Add 1+2 and 10+20",
      "assistant:Let me add.+calls(c1,c2)",
      "tool[c1]:3",
      "tool[c2]:30",
      "assistant:The sums are 3 and 30.",
    ]);
    // The second call saw both results, in call order although c2 finished first.
    expect(outline({ history: provider.calls[1]!.history } as Context)).toEqual(outline(context).slice(0, 4));
    expect(context.systemPrompt).toBe("You are a test agent.");
    expect(context.checkpoints.map((c) => [c.id, c.messageCount])).toEqual([[0, 0], [1, 1], [2, 4]]);
    expect(context.tokenCount).toBe(150);

    expect(types(events)).toEqual([
      "TurnBegin",
      "Warning",
      "CheckpointCreated",
      "StepBegin",
      "CheckpointCreated",
      "TextPart",
      "ToolCallBegin",
      "ToolCallBegin",
      "ToolCall",
      "ToolCall",
      "ToolResult",
      "ToolResult",
      "StatusUpdate",
      "StepBegin",
      "CheckpointCreated",
      "TextPart",
      "StatusUpdate",
      "TurnEnd",
    ]);
    const results = events.filter((e) => e.type === "ToolResult").map((e) => e.payload.tool_call_id);
    expect(results).toEqual(["c2", "c1"]);
    expect(events.at(-1)).toEqual({ type: "TurnEnd", payload: { stop_reason: "no_tool_calls", steps: 2, usage: result.usage, error: null } });
  });

  it("reports context usage against maxContextSize", async () => {
    const { soul } = await testSoul({ scripts: [`text: ${"word ".repeat(100)}\nusage: {"input_other": 2000, "output": 5}`], config: { maxContextSize: 100_000 } });
    const { events } = await collect(soul.run("hello"));
    const status = events.find((e) => e.type === "StatusUpdate")!;
    expect(status.payload).toMatchObject({ max_context_tokens: 100_000, token_usage: { input_other: 2000, output: 5 } });
    expect(status.payload.context_tokens).toBeGreaterThan(2000);
    expect(status.payload.context_usage).toBeCloseTo(status.payload.context_tokens / 100_000);
    expect(soul.status.contextTokens).toBe(status.payload.context_tokens);
    // The auto-compaction threshold is the lower of the two triggers: 85 % of the window (85,000) and the window
    // less the reserve (a quarter of a 100,000 window: 25,000, less than kimi-cli's 50,000).
    expect(soul.status.usage).toMatchObject({ max: 100_000, threshold: 75_000, trigger: "reserve", compactionDue: false });
    expect(soul.status.usage?.tokensToThreshold).toBe(75_000 - status.payload.context_tokens);
  });

  it("has no usage figures when the window size is unknown", async () => {
    const { soul } = await testSoul({ scripts: ["text: hi"] });
    await collect(soul.run("hello"));
    expect(soul.status).toMatchObject({ maxContextTokens: null, contextUsage: null, usage: null });
  });

  it("stops with max_steps when the model keeps calling tools", async () => {
    const loop = script("text: again", call("c", "add", { a: 1, b: 1 }));
    const { soul, provider } = await testSoul({ tools: [add], scripts: [loop, loop, loop, loop], config: { maxStepsPerTurn: 3 } });
    const { result, events } = await collect(soul.run("loop"));
    expect(result.stopReason).toBe("max_steps");
    expect(result.steps).toBe(3);
    expect(provider.calls).toHaveLength(3);
    expect(events.at(-1)?.type).toBe("TurnEnd");
  });

  it("ends with an error result (and TurnEnd) when the provider fails for good", async () => {
    const { soul, context } = await testSoul({ scripts: ["error: 400 bad request"] });
    const { result, events } = await collect(soul.run("hi"));
    expect(result.stopReason).toBe("error");
    expect(result.error?.message).toContain("bad request");
    expect(types(events).slice(-2)).toEqual(["StepInterrupted", "TurnEnd"]);
    expect(events.at(-2)?.payload).toEqual({ reason: "error", error: result.error!.message });
    expect(outline(context)).toEqual(["user:hi"]);
  });

  it("keeps a stored system prompt over the agent's", async () => {
    const first = await testSoul({ scripts: ["text: one"], systemPrompt: "first prompt" });
    await collect(first.soul.run("a"));
    expect(first.provider.calls[0]!.systemPrompt).toBe("first prompt");
    await first.context.writeSystemPrompt("stored prompt");
    first.provider.push("text: two");
    await collect(first.soul.run("b"));
    expect(first.provider.calls[1]!.systemPrompt).toBe("stored prompt");
  });

  it("refuses empty input with a typed error, changing nothing", async () => {
    const { soul, context, provider } = await testSoul({ scripts: ["text: never"] });
    for (const input of ["", "   \n", []]) {
      expect(() => soul.run(input)).toThrowError(EmptyInputError);
      expect(() => soul.steer(input)).toThrowError(EmptyInputError);
    }
    expect(context.history).toEqual([]);
    expect(provider.calls).toEqual([]);
    expect(soul.running).toBe(false);
  });

  it("labels the turn's checkpoint, so the host can revert to the turn by name", async () => {
    const { soul, context } = await testSoul({ scripts: ["text: one", "text: two"] });
    await collect(soul.run("first"));
    const { events } = await collect(soul.run("second", { label: "before-second" }));
    expect(events.find((e) => e.type === "CheckpointCreated")?.payload).toEqual({ id: 2, label: "before-second" });
    await context.revertTo("before-second");
    expect(outline(context)).toEqual(["user:first", "assistant:one"]);
  });

  it("runs one operation at a time", async () => {
    const { soul } = await testSoul({ scripts: ["text: one", "text: two"] });
    const turn = soul.run("first");
    expect(() => soul.run("second")).toThrowError(/already running/);
    await turn.result;
    expect((await soul.run("second").result).stopReason).toBe("no_tool_calls");
  });
});
