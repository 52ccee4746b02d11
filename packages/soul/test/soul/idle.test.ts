/**
 * A host whose client reconnects at once: the old request's turn is
 * aborted, and the new request must not fail with SoulBusyError while the
 * old turn unwinds. `soul.idle()` resolves when it has; `run()` with
 * `waitForIdle` starts once it has.
 */
import { defineTool, toolOk } from "@kosong/core";
import { SoulBusyError } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, collect, outline, testSoul, types } from "./helpers.js";

/** A tool that, once cancelled, takes until `release()` to clean up (a child process being killed, say). */
function slowToStop() {
  let release!: () => void;
  const cleanedUp = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const tool = defineTool({
    name: "Build",
    description: "Builds.",
    parameters: z.object({}),
    execute: async (_params, { signal }) => {
      started();
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      await cleanedUp;
      return toolOk("stopped");
    },
  });
  return { tool, release, running };
}

describe("waiting for the soul to be idle", () => {
  it("idle() resolves once an aborted turn has unwound; a run right after it starts", async () => {
    const build = slowToStop();
    const { soul, context } = await testSoul({ tools: [build.tool], scripts: [call("c1", "Build"), "text: second answer"] });
    expect(soul.running).toBe(false);
    await soul.idle();

    const controller = new AbortController();
    const first = soul.run("build it", { signal: controller.signal });
    const firstEvents = collect(first);
    await build.running;
    controller.abort();
    // The client reconnects at once: the old turn is still unwinding.
    expect(() => soul.run("status?")).toThrowError(SoulBusyError);
    let idle = false;
    const idled = soul.idle().then(() => {
      idle = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(idle).toBe(false);
    build.release();
    await idled;
    expect(soul.running).toBe(false);
    expect((await firstEvents).result.stopReason).toBe("aborted");
    const second = await collect(soul.run("status?"));
    expect(second.result.stopReason).toBe("no_tool_calls");
    expect(outline(context).slice(-2)).toEqual(["user:status?", "assistant:second answer"]);
  });

  it("run() with waitForIdle starts after the running turn has unwound instead of throwing", async () => {
    const build = slowToStop();
    const { soul, context } = await testSoul({ tools: [build.tool], scripts: [call("c1", "Build"), "text: second answer"] });
    const controller = new AbortController();
    const first = soul.run("build it", { signal: controller.signal });
    const firstEvents = collect(first);
    await build.running;
    controller.abort();
    const second = soul.run("status?", { waitForIdle: true });
    const secondEvents = collect(second);
    build.release();
    const { events, result } = await secondEvents;
    expect((await firstEvents).result.stopReason).toBe("aborted");
    expect(result.stopReason).toBe("no_tool_calls");
    expect(types(events)[0]).toBe("TurnBegin");
    expect(types(events).at(-1)).toBe("TurnEnd");
    expect(outline(context).slice(-2)).toEqual(["user:status?", "assistant:second answer"]);
  });

  it("turns waiting with waitForIdle start one at a time", async () => {
    const { soul } = await testSoul({ scripts: ["text: one", "text: two", "text: three"] });
    const turns = [soul.run("a"), soul.run("b", { waitForIdle: true }), soul.run("c", { waitForIdle: true })];
    const results = await Promise.all(turns.map((turn) => turn.result));
    expect(results.map((r) => r.stopReason)).toEqual(["no_tool_calls", "no_tool_calls", "no_tool_calls"]);
    expect(soul.history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
  });
});
