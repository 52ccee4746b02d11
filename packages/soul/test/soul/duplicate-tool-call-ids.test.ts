/**
 * A model that repeats a tool-call id (within one message, or from an
 * earlier step) or sends an empty one: the ids are made unique on receipt,
 * every call runs and gets its own result, the stored conversation
 * validates, and the next request carries distinct ids, through the
 * scripted provider and the three real SDK providers against a local server.
 */
import { defineTool, SimpleToolset, toolOk, type Message } from "@kosong/core";
import { startFakeProviderServer, type FakeProviderServer } from "@kosong/core/testing";
import { MemoryContextLog } from "@kosong/context";
import { readContextFile } from "@kosong/context/records";
import { Context, Soul, type SoulEvent } from "@kosong/soul";
import { validateConversation } from "@kosong/soul/conversation";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { families, sentToolResults } from "../e2e/helpers/providers.js";
import { call, collect, noWait, script, testSoul } from "./helpers.js";

const echo = defineTool({
  name: "Echo",
  description: "Returns its text.",
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => toolOk(`echo: ${text}`),
});

function callIds(messages: readonly Message[]): string[] {
  return messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
}

function expectAnsweredOnce(messages: readonly Message[]): void {
  expect(validateConversation(messages)).toEqual([]);
  const ids = callIds(messages);
  expect(new Set(ids).size).toBe(ids.length);
  const results = messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id);
  expect(results.sort()).toEqual([...ids].sort());
}

describe("duplicate tool-call ids", () => {
  it("scripted: two calls with one id, then a third reusing it in the next step, and an empty id: each runs, each answered, ids distinct", async () => {
    const { soul, provider, context, file } = await testSoul({
      onDisk: true,
      tools: [echo],
      scripts: [
        script(call("dup", "Echo", { text: "one" }), call("dup", "Echo", { text: "two" })),
        script(call("dup", "Echo", { text: "three" }), call("", "Echo", { text: "four" })),
        "text: done",
      ],
    });
    const { events, result } = await collect(soul.run("go"));
    expect(result.stopReason).toBe("no_tool_calls");
    // The events name the ids as stored: every ToolCall event's id has its ToolResult.
    const called = events.flatMap((e: SoulEvent) => (e.type === "ToolCall" ? [e.payload.id] : []));
    const answered = events.flatMap((e: SoulEvent) => (e.type === "ToolResult" ? [e.payload.tool_call_id] : []));
    expect(new Set(called).size).toBe(4);
    expect([...answered].sort()).toEqual([...called].sort());
    // Each result is its own call's.
    const outputs = Object.fromEntries(context.history.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, JSON.stringify(m.content)]));
    const args = Object.fromEntries(context.history.flatMap((m) => m.tool_calls ?? []).map((c) => [c.id, JSON.parse(c.function.arguments!).text as string]));
    for (const [id, text] of Object.entries(args)) expect(outputs[id]).toContain(`echo: ${text}`);
    expectAnsweredOnce(context.history);
    // What the model is shown next, and what a restore gives back.
    expectAnsweredOnce(provider.calls.at(-1)!.history);
    const restored = new Context(file!);
    await context.close();
    await restored.restore();
    expectAnsweredOnce(restored.history);
    await restored.close();
    expect((await readContextFile(file!)).report.skipped).toEqual([]);
  });
});

describe("duplicate tool-call ids through the real SDK providers", () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await startFakeProviderServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  const twoCalls: Message = {
    role: "assistant",
    content: [],
    tool_calls: [
      { type: "function", id: "toolu_same", function: { name: "Echo", arguments: '{"text":"one"}' } },
      { type: "function", id: "toolu_same", function: { name: "Echo", arguments: '{"text":"two"}' } },
    ],
  };

  for (const family of families) {
    it(`${family.name}: both calls run, both results stored, the next request has distinct ids`, async () => {
      server.enqueue({ message: twoCalls }, { message: { role: "assistant", content: [{ type: "text", text: "done" }] } });
      const context = new Context(new MemoryContextLog());
      await context.restore();
      const agent = { name: "test", systemPrompt: "You are a test agent.", toolset: new SimpleToolset([echo]) };
      const soul = new Soul({ agent, provider: family.make(server.url), context, config: { retry: noWait } });
      const { result } = await collect(soul.run("go"));
      expect(result.stopReason).toBe("no_tool_calls");
      expectAnsweredOnce(soul.context.history);
      const sent = sentToolResults(server.requests[1]!);
      expect(Object.keys(sent)).toHaveLength(2);
      expect(Object.values(sent).sort()).toEqual(["echo: one", "echo: two"]);
    });
  }
});
