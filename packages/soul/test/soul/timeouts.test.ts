/**
 * Time limits in the soul: a stalled LLM call (through the real OpenAI SDK
 * provider against a local server, and for any provider through
 * `llmTimeouts`) is a retryable APITimeoutError that the soul retries; a
 * tool that never finishes is cut at its time limit, the model reads a
 * ToolTimeoutError result and the turn goes on; the clock stops while a
 * tool waits for approval.
 */
import { defineTool, SimpleToolset, toolOk, type Message } from "@kosong/core";
import { OpenAIChatProvider } from "@kosong/core/openai";
import { startFakeProviderServer, type FakeProviderServer } from "@kosong/core/testing";
import { MemoryContextLog } from "@kosong/context";
import { Context, Soul, type SoulEvent } from "@kosong/soul";
import { resolveSoulConfig, ToolTimeoutError } from "@kosong/soul/internal";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { call, collect, noWait, script, testSoul } from "./helpers.js";

const answer = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
const retries = (events: SoulEvent[]) => events.filter((e) => e.type === "StepRetry").map((e) => (e.payload as { error_type: string }).error_type);

describe("stalled LLM calls are retried", () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await startFakeProviderServer();
  });
  afterAll(() => server.close());

  async function soulOn(provider: OpenAIChatProvider, config = {}) {
    const context = new Context(new MemoryContextLog());
    await context.restore();
    const agent = { name: "test", systemPrompt: "You help.", toolset: new SimpleToolset([]) };
    return new Soul({ agent, provider, context, config: { retry: noWait, ...config } });
  }

  it("a response that never starts (provider firstByteMs), then one that does", async () => {
    server.reset();
    server.enqueue({ message: answer("too late"), delayMs: 5000 }, { message: answer("on time") });
    const provider = new OpenAIChatProvider({ model: "gpt-4.1", apiKey: "k", baseURL: `${server.url}/v1`, timeouts: { firstByteMs: 1500 } });
    const { events, result } = await collect((await soulOn(provider)).run("hi"));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(retries(events)).toEqual(["APITimeoutError"]);
    expect(events.filter((e) => e.type === "TextPart").map((e) => (e.payload as { text: string }).text).join("")).toContain("on time");
  });

  it("a stream that stalls between chunks (the soul's llmTimeouts.idleMs), then one that flows", async () => {
    server.reset();
    const slow: Message = { role: "assistant", content: ["a ", "stalled ", "answer"].map((text) => ({ type: "text" as const, text })) };
    server.enqueue({ message: slow, chunkDelayMs: 5000 }, { message: answer("flowing") });
    // The provider's own limits are off: the soul's apply.
    const provider = new OpenAIChatProvider({ model: "gpt-4.1", apiKey: "k", baseURL: `${server.url}/v1`, timeouts: { firstByteMs: null, idleMs: null } });
    const { events, result } = await collect((await soulOn(provider, { llmTimeouts: { idleMs: 200 } })).run("hi"));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(retries(events)).toEqual(["APITimeoutError"]);
  });
});

describe("tool time limits", () => {
  const hang = defineTool({
    name: "Hang",
    description: "Never finishes.",
    parameters: z.object({}),
    execute: () => new Promise<never>(() => undefined),
  });
  let stopped = 0;
  const slowButHonest = defineTool({
    name: "Wait",
    description: "Finishes when aborted.",
    parameters: z.object({}),
    execute: (_args, { signal }) =>
      new Promise((resolve) => {
        signal?.addEventListener("abort", () => {
          stopped += 1;
          resolve(toolOk("aborted"));
        });
      }),
  });

  it("a tool that never finishes is cut at its limit, the model reads the error, the turn goes on", async () => {
    const { soul, provider, context } = await testSoul({
      tools: [hang, slowButHonest],
      scripts: [script(call("c1", "Hang"), call("c2", "Wait")), "text: noted"],
      config: { toolTimeouts: { Hang: 150, "*": 200 } },
    });
    const { result, events } = await collect(soul.run("go"));
    expect(result.stopReason).toBe("no_tool_calls");
    const results = context.history.filter((m) => m.role === "tool");
    expect(results.map((m) => m.tool_call_id)).toEqual(["c1", "c2"]);
    for (const m of results) expect(JSON.stringify(m.content)).toMatch(/ran longer than its time limit/);
    expect(JSON.stringify(results[0]!.content)).toContain("0.15 s");
    expect(JSON.stringify(results[1]!.content)).toContain("0.2 s");
    // The tool was told to stop.
    expect(stopped).toBe(1);
    const toolResults = events.filter((e) => e.type === "ToolResult").map((e) => (e.payload as { return_value: unknown }).return_value);
    expect(toolResults.every((value) => ToolTimeoutError.isInstance(value) || (value as { is_error?: boolean }).is_error === true)).toBe(true);
    // The model saw the error results in its next request.
    expect(provider.calls[1]!.history.filter((m) => m.role === "tool")).toHaveLength(2);
  });

  it("the clock stops while the tool waits for approval", async () => {
    const asks = defineTool({
      name: "Asks",
      description: "Asks, then finishes at once.",
      parameters: z.object({}),
      execute: async (_args, { approval }) => {
        const answer = await approval!.request("do it", "do the thing", "this one thing");
        return toolOk(`answered ${JSON.stringify(answer)}`);
      },
    });
    const { soul, context } = await testSoul({ tools: [asks], scripts: [script(call("c1", "Asks")), "text: done"], config: { toolTimeouts: { Asks: 100 } } });
    const turn = soul.run("go");
    for await (const event of turn) {
      if (event.type !== "ApprovalRequest") continue;
      // The scope reaches the host through the time limit's wrapper.
      expect(event.payload).toMatchObject({ action: "do it", scope: "this one thing" });
      // A person takes longer than the tool's limit to answer.
      const id = (event.payload as { id: string }).id;
      setTimeout(() => soul.approval.respond(id, "approve"), 300);
    }
    expect((await turn.result).stopReason).toBe("no_tool_calls");
    const output = JSON.stringify(context.history.find((m) => m.role === "tool")!.content);
    expect(output).toContain("answered");
    expect(output).not.toContain("time limit");
  });

  it("limits are checked: zero, negative or not a number is a RangeError; none by default", () => {
    expect(() => resolveSoulConfig({ toolTimeouts: { Shell: 0 } })).toThrow(RangeError);
    expect(() => resolveSoulConfig({ toolTimeouts: { Shell: -1 } })).toThrow(RangeError);
    expect(() => resolveSoulConfig({ llmTimeouts: { idleMs: 0 } })).toThrow(RangeError);
    expect(resolveSoulConfig({}).toolTimeouts).toEqual({});
    expect(resolveSoulConfig({}).llmTimeouts).toEqual({});
  });
});
