/**
 * `SoulOptions.observer`: a host sees every event of every operation, in
 * order, one call at a time, whether or not the stream is iterated; the
 * result settles after the observer is done; its failures break nothing.
 */
import { defineTool, toolOk } from "@kosong/core";
import type { SoulEvent } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, collect, testSoul, types } from "./helpers.js";

const echo = defineTool({ name: "Echo", description: "Echoes.", parameters: z.object({}), execute: () => Promise.resolve(toolOk("echoed")) });

describe("the soul's observer", () => {
  it("sees each event of each operation in order, one call at a time, done before the result settles, even with nobody iterating", async () => {
    const observed: string[] = [];
    let inside = 0;
    let overlapped = false;
    const { soul } = await testSoul({
      tools: [echo],
      scripts: [call("c1", "Echo"), "text: first answer", "text: second answer"],
      observer: async (event: SoulEvent) => {
        overlapped ||= inside > 0;
        inside += 1;
        await new Promise((resolve) => setTimeout(resolve, 1));
        observed.push(event.type);
        inside -= 1;
      },
    });
    const first = await collect(soul.run("use the tool"));
    expect(observed).toEqual(types(first.events));
    expect(observed).toEqual(expect.arrayContaining(["CheckpointCreated", "ToolCallBegin", "ToolResult", "TurnEnd"]));
    expect(overlapped).toBe(false);

    // The host does not iterate this turn's stream: the observer still sees all of it before the result.
    observed.length = 0;
    const second = soul.run("again");
    expect((await second.result).stopReason).toBe("no_tool_calls");
    expect(observed[0]).toBe("TurnBegin");
    expect(observed.at(-1)).toBe("TurnEnd");
    expect(observed).toContain("CheckpointCreated");
    expect(soul.running).toBe(false);
  });

  it("goes on when the observer throws or rejects: the turn ends as it would, later events are still observed", async () => {
    const observed: string[] = [];
    let calls = 0;
    const { soul, context } = await testSoul({
      scripts: [call("c1", "Echo"), "text: done"],
      tools: [echo],
      observer: (event: SoulEvent) => {
        calls += 1;
        observed.push(event.type);
        if (calls === 1) throw new Error("observer broke");
        if (calls === 2) return Promise.reject(new Error("observer rejected"));
      },
    });
    const turn = await collect(soul.run("go"));
    expect(turn.result.stopReason).toBe("no_tool_calls");
    expect(observed).toEqual(types(turn.events));
    expect(context.history.at(-1)).toMatchObject({ role: "assistant" });
  });
});
