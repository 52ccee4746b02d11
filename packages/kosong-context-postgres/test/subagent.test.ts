/**
 * A child soul (`runSubagent`) on a PostgresContextLog: its conversation
 * lives in its own session of the store, linked to the parent's session and
 * call by its turn checkpoint's label, and restores from there; a second
 * call with the same context goes on with it.
 */
import { defineTool, SimpleToolset } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { MemoryContextLog } from "@kosong/context";
import { Context, Soul, type SoulStream } from "@kosong/soul";
import { runSubagent, subagentToolResult } from "@kosong/soul/subagent";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { sessionId, testStore } from "./helpers/store.js";

const store = await testStore();
const call = (id: string, name: string, args: Record<string, unknown>) => `tool_call: ${JSON.stringify({ id, name, arguments: JSON.stringify(args) })}`;

async function drain<R>(stream: SoulStream<R>): Promise<R> {
  for await (const _ of stream) void _;
  return stream.result;
}

describe("a child soul on PostgresContextLog", () => {
  it("keeps the child's conversation in its own session, linked to the parent's call, and resumes it", async () => {
    const childId = sessionId();
    const childModel = new ScriptedChatProvider(["text: first answer", "text: second answer"]);
    const child = new Context(await store.openLog(childId));
    const agent = defineTool({
      name: "Agent",
      description: "Runs the child.",
      parameters: z.object({ prompt: z.string() }),
      execute: async ({ prompt }, toolContext) =>
        subagentToolResult(await runSubagent(toolContext, prompt, { agent: { name: "helper", systemPrompt: "You help.", toolset: new SimpleToolset([]) }, provider: childModel, context: child, config: { maxContextSize: 100_000 } })),
    });
    const parent = new Context(new MemoryContextLog());
    await parent.restore();
    const soul = new Soul({
      agent: { name: "lead", systemPrompt: "You lead.", toolset: new SimpleToolset([agent]) },
      provider: new ScriptedChatProvider([call("c1", "Agent", { prompt: "one" }), "text: ok", call("c2", "Agent", { prompt: "two" }), "text: ok again"]),
      context: parent,
      config: { maxContextSize: 100_000 },
    });
    expect((await drain(soul.run("first"))).stopReason).toBe("no_tool_calls");
    expect((await drain(soul.run("second"))).stopReason).toBe("no_tool_calls");
    await child.close();

    const reopened = new Context(await store.openLog(childId));
    await reopened.restore();
    expect(reopened.systemPrompt).toBe("You help.");
    expect(reopened.history.map((m) => `${m.role}:${m.content.map((p) => (p.type === "text" ? p.text : "")).join("")}`)).toEqual([
      "user:one",
      "assistant:first answer",
      "user:two",
      "assistant:second answer",
    ]);
    expect(reopened.checkpoints.filter((c) => c.label !== undefined).map((c) => c.label)).toEqual([`${soul.session.id}/c1`, `${soul.session.id}/c2`]);
    await reopened.close();
  });
});
