/**
 * What the loop costs the disk: on a context.jsonl with durability "batch",
 * a step is one write and one fsync (its checkpoint and token count go with
 * its messages), and a one-step turn is two (the turn's checkpoint goes with
 * the user's message).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { SimpleToolset, defineTool, type CallableTool } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { JsonlContextFile } from "@kosong/context";
import { Context, SendDMail, Soul } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, noWait, script, tempDir } from "./helpers.js";

const usage = (input: number) => `usage: {"input_other": ${input}, "output": 3}`;

const Echo = defineTool({ name: "Echo", description: "Echoes.", parameters: z.object({ text: z.string() }), execute: async ({ text }) => text });

async function soulOnFile(scripts: string[], tools: CallableTool[] = [Echo]) {
  const file = await JsonlContextFile.open(path.join(await tempDir(), "context.jsonl"));
  const context = new Context(file);
  await context.restore();
  const provider = new ScriptedChatProvider(scripts);
  const soul = new Soul({ agent: { name: "io", systemPrompt: "You help.", toolset: new SimpleToolset(tools) }, provider, context, config: { retry: noWait } });
  /** Writes and fsyncs of the file since the last call. */
  let last = file.stats;
  const io = () => {
    const now = file.stats;
    const delta = { writes: now.writes - last.writes, syncs: now.syncs - last.syncs };
    last = now;
    return delta;
  };
  return { soul, context, io };
}

describe("the loop's writes", () => {
  it("makes a one-step turn two writes and two fsyncs, and each further step one", async () => {
    const { soul, context, io } = await soulOnFile([
      `text: hello\n${usage(10)}`,
      `text: again\n${usage(20)}`,
      script(call("e1", "Echo", { text: "x" }), usage(30)),
      script(call("e2", "Echo", { text: "y" }), usage(40)),
      `text: done\n${usage(50)}`,
    ]);
    expect((await soul.run("hi").result).stopReason).toBe("no_tool_calls");
    io(); // the first turn also writes the system prompt
    expect((await soul.run("hi again").result).steps).toBe(1);
    expect(io()).toEqual({ writes: 2, syncs: 2 });
    expect((await soul.run("echo twice").result).steps).toBe(3);
    expect(io()).toEqual({ writes: 4, syncs: 4 });

    // Every step's checkpoint and token count are in the file.
    expect([context.nCheckpoints, context.tokenCount]).toEqual([8, 50]);
    await context.close();
    const again = new Context(context.location);
    await again.restore();
    expect([again.nCheckpoints, again.tokenCount, again.history.length]).toEqual([8, 50, 10]);
    await again.close();
  });

  it("writes no system prompt in the first turn when the host stored it ahead (once, however often asked): that turn is two writes too", async () => {
    const { soul, context, io } = await soulOnFile([`text: hello\n${usage(10)}`]);
    // As the interactive CLI does while its user types; a turn that starts meanwhile asks for the same prompt again.
    await Promise.all([context.writeSystemPrompt("You help."), context.writeSystemPrompt("You help.")]);
    expect(io()).toEqual({ writes: 1, syncs: 1 });
    expect((await soul.run("hi").result).stopReason).toBe("no_tool_calls");
    expect(io()).toEqual({ writes: 2, syncs: 2 });
    await context.close();
    const records = (await readFile(context.location, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { role: string });
    expect(records.map((r) => r.role)).toEqual(["_system_prompt", "_checkpoint", "user", "_checkpoint", "_usage", "assistant"]);
  });

  it("keeps a step one write with D-Mail on, the checkpoint's visible message going with it", async () => {
    const { soul, context, io } = await soulOnFile(
      [`text: hello\n${usage(10)}`, script(call("e1", "Echo", { text: "x" }), usage(30)), `text: done\n${usage(50)}`],
      [Echo, SendDMail],
    );
    await soul.run("hi").result;
    io();
    const turn = soul.run("echo once");
    const seen: string[] = [];
    for await (const event of turn) if (event.type === "CheckpointCreated") seen.push(`checkpoint ${event.payload.id}`);
    expect((await turn.result).steps).toBe(2);
    // The turn's checkpoint with the user's message, then one write per step.
    expect(io()).toEqual({ writes: 3, syncs: 3 });
    expect(seen).toEqual(["checkpoint 2", "checkpoint 3", "checkpoint 4"]);
    const checkpointTexts = context.history.filter((m) => m.role === "user").map((m) => (m.content[0] as { text: string }).text);
    // The turn's checkpoint (2) has no visible message; each step's has.
    expect(checkpointTexts.slice(-4)).toEqual(["<system>CHECKPOINT 1</system>", "echo once", "<system>CHECKPOINT 3</system>", "<system>CHECKPOINT 4</system>"]);
    // The token count of a step covers its request, whose last message was the step's checkpoint.
    expect(context.tokenCountMessages).toBe(context.history.length - 1);
    await context.close();
  });
});
