/**
 * The event stream of a turn: a slow consumer gets everything, a consumer
 * that stops or throws never breaks the turn, and the events come once.
 */
import { defineTool, toolOk } from "@kosong/core";
import { StreamAlreadyIteratedError } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, collect, outline, script, testSoul, types } from "./helpers.js";

const echo = defineTool({ name: "echo", description: "Echoes.", parameters: z.object({ text: z.string() }), execute: ({ text }) => toolOk(text) });

const twoSteps = () => [script("text: calling", call("c1", "echo", { text: "hi" })), "text: finished"];

describe("turn events", () => {
  it("are kept for a consumer that only starts reading after the turn ended", async () => {
    const { soul, context } = await testSoul({ tools: [echo], scripts: twoSteps() });
    const turn = soul.run("go");
    const result = await turn.result;
    expect(outline(context).at(-1)).toBe("assistant:finished");
    const events = [];
    for await (const event of turn) events.push(event);
    expect(events[0]?.type).toBe("TurnBegin");
    expect(events.at(-1)).toMatchObject({ type: "TurnEnd", payload: { stop_reason: result.stopReason, steps: 2 } });
  });

  it("reach a consumer that is slower than the turn, all of them, in order", async () => {
    const fast = await testSoul({ tools: [echo], scripts: twoSteps() });
    const { events: expected } = await collect(fast.soul.run("go"));
    const { soul } = await testSoul({ tools: [echo], scripts: twoSteps() });
    const seen = [];
    for await (const event of soul.run("go")) {
      seen.push(event);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(types(seen)).toEqual(types(expected));
  });

  it("do not break the turn when the consumer throws or stops early", async () => {
    const { soul, context } = await testSoul({ tools: [echo], scripts: twoSteps() });
    const turn = soul.run("go");
    await expect(
      (async () => {
        for await (const event of turn) if (event.type === "ToolCall") throw new Error("consumer bug");
      })(),
    ).rejects.toThrow("consumer bug");
    expect((await turn.result).stopReason).toBe("no_tool_calls");
    expect(outline(context)).toEqual(["user:go", "assistant:calling+calls(c1)", "tool[c1]:hi", "assistant:finished"]);
  });

  it("can be iterated once", async () => {
    const { soul } = await testSoul({ scripts: ["text: hi"] });
    const turn = soul.run("go");
    await collect(turn);
    expect(() => turn[Symbol.asyncIterator]()).toThrowError(StreamAlreadyIteratedError);
  });

  it("end with TurnEnd after an error", async () => {
    const { soul } = await testSoul({ scripts: [] });
    const { events, result } = await collect(soul.run("go"));
    expect(result.stopReason).toBe("error");
    expect(events.at(-1)).toMatchObject({ type: "TurnEnd", payload: { stop_reason: "error", error: expect.stringContaining("exhausted") } });
  });
});
