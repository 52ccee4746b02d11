/**
 * A server that reports token usage that is not counts (negative, past
 * 2^53, 1e300): the usage is taken as not reported, so the step's answer and
 * tool results are saved and the turn goes on; before, writing the step
 * failed on the token count and the step's messages were lost although its
 * tools had run. Through the three real SDK providers against a local server.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { defineTool, SimpleToolset, toolOk, type Message } from "@kosong/core";
import { startFakeProviderServer, type FakeProviderServer } from "@kosong/core/testing";
import { Context, Soul } from "@kosong/soul";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { families } from "../e2e/helpers/providers.js";
import { collect, noWait } from "./helpers.js";

const ran: string[] = [];
const note = defineTool({
  name: "Note",
  description: "Notes its text.",
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => (ran.push(text), toolOk(`noted: ${text}`)),
});

const callNote: Message = { role: "assistant", content: [{ type: "text", text: "Noting." }], tool_calls: [{ type: "function", id: "call_1", function: { name: "Note", arguments: '{"text":"kept"}' } }] };
const done: Message = { role: "assistant", content: [{ type: "text", text: "done" }] };
const hostileUsage = { input_other: 2 ** 60, output: 1e300, input_cache_read: 0, input_cache_creation: 0 };
const usage = { input_other: 40, output: 5, input_cache_read: 0, input_cache_creation: 0 };

describe("token usage that is not counts", () => {
  let server: FakeProviderServer;
  let dir = "";
  beforeAll(async () => {
    server = await startFakeProviderServer();
    dir = await mkdtemp(path.join(os.tmpdir(), "soul-usage-"));
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => server.reset());

  for (const family of families) {
    it(`${family.name}: the step is saved and the turn goes on, the usage taken as not reported`, async () => {
      ran.length = 0;
      server.enqueue({ message: callNote, usage: hostileUsage }, { message: done, usage });
      const file = path.join(dir, `${family.name}.jsonl`);
      const context = new Context(file);
      await context.restore();
      const agent = { name: "test", systemPrompt: "You are a test agent.", toolset: new SimpleToolset([note]) };
      const soul = new Soul({ agent, provider: family.make(server.url), context, config: { retry: noWait } });
      const { result } = await collect(soul.run("go"));
      expect([result.stopReason, ran]).toEqual(["no_tool_calls", ["kept"]]);
      for (const count of Object.values(result.usage)) expect(Number.isSafeInteger(count) && count >= 0).toBe(true);
      await context.close();
      const restored = new Context(file);
      await restored.restore();
      expect(restored.history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
      expect(restored.tokenCount).toBe(40);
      await restored.close();
    });
  }
});
