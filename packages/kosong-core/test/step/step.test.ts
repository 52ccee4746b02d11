import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  APIConnectionError,
  APIEmptyResponseError,
  defineTool,
  EmptyToolset,
  isAbortError,
  SimpleToolset,
  step,
  textPart,
  ToolCancelledError,
  toolCall,
  toolCallPart,
  toolOk,
  toolResultToMessage,
  userMessage,
  type ToolResult,
  type Toolset,
} from "@kosong/core";
import { flush, gate, partsProvider, StreamProvider, whenAborted } from "../helpers/stream-provider.js";
import { rejection } from "../helpers/rejection.js";


/** A tool that records its lifecycle and finishes when the test says so (or when cancelled). */
function controlledTool(name: string) {
  const started = gate<AbortSignal>();
  const finish = gate<string>();
  const events: string[] = [];
  const tool = defineTool({
    name,
    description: `controlled ${name}`,
    parameters: z.object({}),
    execute: async (_params, { signal }) => {
      events.push("start");
      signal.addEventListener("abort", () => events.push("abort"), { once: true });
      started.open(signal);
      const output = await Promise.race([finish.promise, whenAborted(signal).then(() => "aborted")]);
      events.push(`end:${output}`);
      return toolOk(output);
    },
  });
  return { tool, started, finish, events };
}

describe("step", () => {
  it("returns the message, the tool calls and their results", async () => {
    const echo = defineTool({ name: "echo", description: "d", parameters: z.object({ text: z.string() }), execute: ({ text }) => text });
    const provider = partsProvider([textPart("calling"), toolCall("c1", "echo", { text: "hi" })], { id: "r1", finishReason: "tool_calls" });
    const history = [userMessage("say hi")];
    const result = await step(provider, "sys", new SimpleToolset([echo]), history);
    expect(result.id).toBe("r1");
    expect(result.finishReason).toBe("tool_calls");
    expect(result.message.tool_calls).toEqual([toolCall("c1", "echo", { text: "hi" })]);
    expect(result.toolCalls).toEqual(result.message.tool_calls);
    expect(await result.toolResults()).toEqual([{ tool_call_id: "c1", return_value: toolOk("hi") }]);
    expect(provider.calls[0]!.tools).toEqual([echo.definition]);
    expect(history).toEqual([userMessage("say hi")]);
  });

  it("resolves with no tool results when the model calls no tool", async () => {
    const result = await step(partsProvider([textPart("just text")]), "", new EmptyToolset(), []);
    expect(result.toolCalls).toEqual([]);
    expect(await result.toolResults()).toEqual([]);
  });

  it("starts a tool as soon as its call is complete, while the model is still streaming", async () => {
    const a = controlledTool("a");
    const provider = new StreamProvider(async function* () {
      yield toolCall("c1", "a", null);
      yield toolCallPart("{}");
      yield textPart("still streaming");
      // The stream goes on only once the tool has started: if tools started
      // after the stream ended, this would never resolve.
      await a.started.promise;
      yield textPart(" after the tool started");
    });
    const done = step(provider, "", new SimpleToolset([a.tool]), []);
    await a.started.promise;
    a.finish.open("A done");
    const result = await done;
    expect(result.message.content).toEqual([textPart("still streaming after the tool started")]);
    expect(await result.toolResults()).toEqual([{ tool_call_id: "c1", return_value: toolOk("A done") }]);
  });

  it("runs tools concurrently: results come in call order, callbacks in completion order", async () => {
    const a = controlledTool("a");
    const b = controlledTool("b");
    const provider = partsProvider([toolCall("c1", "a", "{}"), toolCall("c2", "b", "{}")]);
    const completed: string[] = [];
    const result = await step(provider, "", new SimpleToolset([a.tool, b.tool]), [], {
      onToolResult: (r) => void completed.push(r.tool_call_id),
    });
    await Promise.all([a.started.promise, b.started.promise]);
    b.finish.open("B");
    await flush();
    expect(completed).toEqual(["c2"]);
    a.finish.open("A");
    const results = await result.toolResults();
    expect(results.map((r) => [r.tool_call_id, r.return_value.output])).toEqual([
      ["c1", "A"],
      ["c2", "B"],
    ]);
    expect(completed).toEqual(["c2", "c1"]);
  });

  it("an abort cancels running tools, waits for them, and rejects with an AbortError", async () => {
    const a = controlledTool("a");
    const provider = new StreamProvider(async function* (signal) {
      yield toolCall("c1", "a", "{}");
      yield textPart("thinking out loud");
      await whenAborted(signal!);
      throw new APIConnectionError("aborted");
    });
    const controller = new AbortController();
    const results: ToolResult[] = [];
    const done = step(provider, "", new SimpleToolset([a.tool]), [], {
      signal: controller.signal,
      onToolResult: (r) => void results.push(r),
    });
    const toolSignal = await a.started.promise;
    expect(toolSignal.aborted).toBe(false);
    controller.abort();
    const error = await rejection(done);
    expect(isAbortError(error)).toBe(true);
    expect(toolSignal.aborted).toBe(true);
    // The tool has finished its own cleanup before step rejected.
    expect(a.events).toEqual(["start", "abort", "end:aborted"]);
    expect(results).toEqual([]);
  });

  it("never hangs on a tool that ignores its signal: it is abandoned after the grace period", async () => {
    const started = gate();
    const stubborn = defineTool({
      name: "stubborn",
      description: "d",
      parameters: z.object({}),
      execute: () => {
        started.open();
        return new Promise<string>(() => {});
      },
    });
    const provider = new StreamProvider(async function* () {
      yield toolCall("c1", "stubborn", "{}");
      yield textPart("x");
      await new Promise(() => {});
    });
    const controller = new AbortController();
    const done = step(provider, "", new SimpleToolset([stubborn]), [], { signal: controller.signal, cancelGraceMs: 20 });
    await started.promise;
    controller.abort();
    expect(isAbortError(await rejection(done))).toBe(true);
  });

  it("a provider error cancels the tools already started and rejects with that error", async () => {
    const a = controlledTool("a");
    const cut = new APIConnectionError("connection reset");
    const provider = new StreamProvider(async function* () {
      yield toolCall("c1", "a", "{}");
      yield toolCall("c2", "a", '{"trunc');
      await a.started.promise;
      throw cut;
    });
    const error = await rejection(step(provider, "", new SimpleToolset([a.tool]), []));
    expect(error).toBe(cut);
    // The started tool saw its signal abort and had finished before step rejected.
    expect(a.events).toEqual(["start", "abort", "end:aborted"]);
  });

  it("keeps kosong's partial result when the stream breaks after every call was complete", async () => {
    const echo = defineTool({ name: "echo", description: "d", parameters: z.object({ n: z.number() }), execute: ({ n }) => `n=${n}` });
    const provider = partsProvider([toolCall("c1", "echo", '{"n":1}'), toolCall("c2", "echo", '{"n":2}'), textPart("and then")], {
      error: new APIConnectionError("cut"),
    });
    const result = await step(provider, "", new SimpleToolset([echo]), []);
    expect((await result.toolResults()).map((r) => r.return_value.output)).toEqual(["n=1", "n=2"]);
  });

  it("never runs the call a broken stream left open, and rejects with the stream's error", async () => {
    const ran: number[] = [];
    const echo = defineTool({ name: "echo", description: "d", parameters: z.object({ n: z.number().optional() }), execute: ({ n }) => {
      ran.push(n ?? -1);
      return "ok";
    } });
    const cut = new APIConnectionError("cut");
    const provider = partsProvider([toolCall("c1", "echo", '{"n":1}'), toolCall("c2", "echo", null)], { error: cut });
    expect(await rejection(step(provider, "", new SimpleToolset([echo]), []))).toBe(cut);
    expect(ran).not.toContain(-1);
  });

  it("rejects an empty response after settling nothing", async () => {
    const error = await rejection(step(partsProvider([]), "", new EmptyToolset(), []));
    expect(APIEmptyResponseError.isInstance(error)).toBe(true);
  });

  it("after it resolved, aborting still cancels running tools, whose results say so", async () => {
    const a = controlledTool("a");
    const controller = new AbortController();
    const completed: ToolResult[] = [];
    const result = await step(partsProvider([toolCall("c1", "a", "{}")]), "", new SimpleToolset([a.tool]), [], {
      signal: controller.signal,
      onToolResult: (r) => void completed.push(r),
    });
    const toolSignal = await a.started.promise;
    controller.abort();
    const [only] = await result.toolResults();
    expect(toolSignal.aborted).toBe(true);
    expect(ToolCancelledError.isInstance(only!.return_value)).toBe(true);
    expect(only!.return_value.is_error).toBe(true);
    expect(only!.return_value.message).toMatch(/cancelled/);
    expect(completed).toEqual([only]);
  });

  it("rejects at once when the signal is already aborted", async () => {
    const provider = partsProvider([textPart("x")]);
    const controller = new AbortController();
    controller.abort();
    expect(isAbortError(await rejection(step(provider, "", new EmptyToolset(), [], { signal: controller.signal })))).toBe(true);
    expect(provider.calls).toHaveLength(0);
  });

  it("turns a toolset that throws or rejects into error results instead of failing the step", async () => {
    const broken: Toolset = {
      tools: [],
      handle: (call) => {
        if (call.id === "c1") throw new Error("sync bug");
        return Promise.reject(new Error("async bug"));
      },
    };
    const result = await step(partsProvider([toolCall("c1", "x", "{}"), toolCall("c2", "y", "{}")]), "", broken, []);
    const messages = (await result.toolResults()).map((r) => r.return_value.message);
    expect(messages).toEqual(["Error running tool: sync bug", "Error running tool: async bug"]);
  });

  it("keeps a result whose onToolResult callback throws", async () => {
    const echo = defineTool({ name: "echo", description: "d", parameters: z.object({}), execute: () => "ok" });
    const result = await step(partsProvider([toolCall("c1", "echo", "{}")]), "", new SimpleToolset([echo]), [], {
      onToolResult: () => {
        throw new Error("ui crashed");
      },
    });
    expect((await result.toolResults())[0]!.return_value.output).toBe("ok");
  });

  it("brings every tool error kind to the model as an error result with a useful message", async () => {
    const add = defineTool({
      name: "add",
      description: "Add two integers.",
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => String(a + b),
    });
    const explode = defineTool({
      name: "explode",
      description: "d",
      parameters: z.object({}),
      execute: () => {
        throw new Error("kaboom");
      },
    });
    const provider = partsProvider([
      toolCall("c1", "subtract", "{}"),
      toolCall("c2", "add", '{"a": 1, "b": '),
      toolCall("c3", "add", '{"a": 1, "b": "two"}'),
      toolCall("c4", "explode", "{}"),
      toolCall("c5", "add", '{"a": 1, "b": 2}'),
    ]);
    const result = await step(provider, "", new SimpleToolset([add, explode]), []);
    const messages = (await result.toolResults()).map(toolResultToMessage);
    const texts = messages.map((m) => (m.content[0]!.type === "text" ? m.content[0]!.text : ""));
    expect(messages.map((m) => m.tool_call_id)).toEqual(["c1", "c2", "c3", "c4", "c5"]);
    expect(texts[0]).toBe("<system>ERROR: Tool `subtract` not found</system>");
    expect(texts[1]).toMatch(/^<system>ERROR: Error parsing JSON arguments: .+<\/system>$/s);
    expect(texts[2]).toMatch(/^<system>ERROR: Error validating JSON arguments: .*expected number.*at b<\/system>$/s);
    expect(texts[3]).toBe(
      "<system>ERROR: Error running tool: kaboom\nThis is an unexpected error and the tool is probably not working.</system>",
    );
    expect(texts[4]).toBe("3");
  });

  describe("cleanup", () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it("leaves no listener on the caller's signal or the tools' signal once the tools have finished", async () => {
      const signals: AbortSignal[] = [];
      const quick = defineTool({
        name: "quick",
        description: "d",
        parameters: z.object({}),
        execute: (_params, { signal }) => {
          signals.push(signal);
          return "done";
        },
      });
      const controller = new AbortController();
      const result = await step(partsProvider([toolCall("c1", "quick", "{}"), toolCall("c2", "quick", "{}")]), "", new SimpleToolset([quick]), [], {
        signal: controller.signal,
      });
      await result.toolResults();
      await flush();
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
      expect(signals).toHaveLength(2);
      for (const signal of signals) expect(getEventListeners(signal, "abort")).toHaveLength(0);

      const plain = await step(partsProvider([textPart("no tools")]), "", new EmptyToolset(), [], { signal: controller.signal });
      await plain.toolResults();
      await flush();
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    });

    it("leaves no grace timer and no listener behind once cancelled tools have settled", async () => {
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
      const a = controlledTool("a");
      const b = controlledTool("b");
      const provider = new StreamProvider(async function* (signal) {
        yield toolCall("c1", "a", "{}");
        yield toolCall("c2", "b", "{}");
        yield textPart("x");
        await whenAborted(signal!);
        throw new APIConnectionError("aborted");
      });
      const controller = new AbortController();
      const done = step(provider, "", new SimpleToolset([a.tool, b.tool]), [], { signal: controller.signal });
      await Promise.all([a.started.promise, b.started.promise]);
      controller.abort();
      expect(isAbortError(await rejection(done))).toBe(true);
      expect([a.events, b.events]).toEqual([
        ["start", "abort", "end:aborted"],
        ["start", "abort", "end:aborted"],
      ]);
      expect(vi.getTimerCount()).toBe(0);
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    });

    it("with cancelGraceMs Infinity, waits for a slow cancelled tool however long it takes (no timer at all)", async () => {
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
      const started = gate<AbortSignal>();
      const release = gate();
      let finished = false;
      const slow = defineTool({
        name: "slow",
        description: "d",
        parameters: z.object({}),
        execute: async (_params, { signal }) => {
          started.open(signal);
          await release.promise;
          finished = true;
          return "late";
        },
      });
      const provider = new StreamProvider(async function* (signal) {
        yield toolCall("c1", "slow", "{}");
        yield textPart("x");
        await whenAborted(signal!);
        throw new APIConnectionError("aborted");
      });
      const controller = new AbortController();
      let settled = false;
      const done = step(provider, "", new SimpleToolset([slow]), [], { signal: controller.signal, cancelGraceMs: Infinity });
      done.catch(() => {}).finally(() => (settled = true));
      await started.promise;
      controller.abort();
      await flush();
      expect(vi.getTimerCount()).toBe(0);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(settled).toBe(false);
      release.open();
      expect(isAbortError(await rejection(done))).toBe(true);
      expect(finished).toBe(true);
    });

    it("rejects a cancelGraceMs that is negative or not a number", async () => {
      for (const cancelGraceMs of [-1, Number.NaN]) {
        const error = await rejection(step(partsProvider([textPart("x")]), "", new EmptyToolset(), [], { cancelGraceMs }));
        expect(error).toBeInstanceOf(RangeError);
      }
    });
  });
});
