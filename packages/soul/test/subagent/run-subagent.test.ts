/**
 * Child souls run from a tool (`runSubagent`): each on its own context, its
 * events nested under the parent's call, its usage in the parent's turn,
 * its approvals asked through the parent's channel, its failure or abort an
 * error result the parent's model reads, several at once.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { defineTool, toolOk } from "@kosong/core";
import { validateConversation } from "@kosong/soul/conversation";
import { Context, parseEvent, serializeEvent, type SoulEvent } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { approvingShell, call, collect, ofType, outline, script, tempDir, types } from "../soul/helpers.js";
import { family } from "./helpers.js";

/** The child events nested under `callId`, unwrapped. */
function nested(events: readonly SoulEvent[], callId: string): SoulEvent[] {
  return ofType(events, "SubagentEvent").flatMap((e) => (e.payload.parent_tool_call_id === callId ? [e.payload.event] : []));
}

describe("runSubagent", () => {
  it("runs the child on its own context and gives its final answer as the tool result", async () => {
    const dir = await tempDir();
    const { soul, context, providers, contexts } = await family({
      parent: [script(call("c1", "Agent", { name: "scout", prompt: "find the config" })), "text: the scout found it"],
      children: { scout: ["text: config is in etc/app.toml"] },
      childDir: dir,
    });
    const { result } = await collect(soul.run("where is the config?"));
    expect(result.stopReason).toBe("no_tool_calls");
    // The parent's history holds the call and the child's answer, nothing of the child's conversation.
    expect(outline(context)).toEqual(["user:where is the config?", "assistant:+calls(c1)", "tool[c1]:<system>Agent agent-scout (coder) finished.</system>config is in etc/app.toml", "assistant:the scout found it"]);
    // The child saw only its own system prompt and prompt.
    expect(providers.scout!.calls[0]!.systemPrompt).toBe("You are scout.");
    expect(outline(providers.scout!.calls[0]!.history)).toEqual(["user:find the config"]);
    await contexts.scout!.close();
    // Its conversation is its own file, its turn checkpoint labelled with the parent's session and call.
    const reopened = new Context(path.join(dir, "scout.jsonl"));
    await reopened.restore();
    expect(outline(reopened)).toEqual(["user:find the config", "assistant:config is in etc/app.toml"]);
    expect(reopened.checkpoints[0]!.label).toBe(`${soul.session.id}/c1`);
    expect(await readFile(path.join(dir, "scout.jsonl"), "utf8")).toContain('"_system_prompt"');
    await reopened.close();
  });

  it("nests the child's events under the parent's call, between its ToolCall and ToolResult, and they round-trip as JSON", async () => {
    const { soul } = await family({
      parent: [script(call("c1", "Agent", { name: "scout", prompt: "look" })), "text: done"],
      children: { scout: ["text: looked"] },
    });
    const { events } = await collect(soul.run("go"));
    const inner = nested(events, "c1");
    expect(types(inner)).toEqual(["TurnBegin", "CheckpointCreated", "StepBegin", "CheckpointCreated", "TextPart", "StatusUpdate", "TurnEnd"]);
    const all = types(events);
    const first = all.indexOf("SubagentEvent");
    expect(first).toBeGreaterThan(events.findIndex((e) => e.type === "ToolCall" && e.payload.id === "c1"));
    expect(all.lastIndexOf("SubagentEvent")).toBeLessThan(events.findIndex((e) => e.type === "ToolResult"));
    const wrapper = ofType(events, "SubagentEvent")[0]!;
    expect(wrapper.payload).toMatchObject({ parent_tool_call_id: "c1", agent_id: "agent-scout", subagent_type: "coder" });
    for (const event of ofType(events, "SubagentEvent")) expect(parseEvent(serializeEvent(event))).toEqual(JSON.parse(serializeEvent(event)));
  });

  it("counts the child's token usage in the parent's turn", async () => {
    const { soul } = await family({
      parent: [script(call("c1", "Agent", { name: "scout", prompt: "look" }), "usage: input_other=100 output=10"), script("text: done", "usage: input_other=200 output=20")],
      children: { scout: [script("text: looked", "usage: input_other=1000 output=50")] },
    });
    const { events, result } = await collect(soul.run("go"));
    expect(result.usage).toEqual({ input_other: 1300, output: 80, input_cache_read: 0, input_cache_creation: 0 });
    expect(ofType(events, "TurnEnd")[0]!.payload.usage).toEqual(result.usage);
    // The child's own TurnEnd reports its own share.
    const childEnd = ofType(nested(events, "c1"), "TurnEnd")[0]!;
    expect(childEnd.payload.usage).toMatchObject({ input_other: 1000, output: 50 });
  });

  it("runs the children of parallel calls at the same time, each on its own context", async () => {
    let waiting: (() => void) | null = null;
    const met: string[] = [];
    // Each child's Meet call waits for the other child's: only children running at once get past it.
    const meet = defineTool({
      name: "Meet",
      description: "Waits for the other child.",
      parameters: z.object({ who: z.string() }),
      async execute({ who }) {
        if (waiting === null) {
          await new Promise<void>((resolve) => (waiting = resolve));
        } else {
          waiting();
        }
        met.push(who);
        return toolOk(`${who} met`);
      },
    });
    const { soul, contexts } = await family({
      parent: [script(call("c1", "Agent", { name: "a", prompt: "meet b" }), call("c2", "Agent", { name: "b", prompt: "meet a" })), "text: both met"],
      children: { a: [script(call("m1", "Meet", { who: "a" })), "text: a done"], b: [script(call("m2", "Meet", { who: "b" })), "text: b done"] },
      childTools: [meet],
    });
    const { events, result } = await collect(soul.run("go"));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(met.toSorted()).toEqual(["a", "b"]);
    expect(ofType(events, "ToolResult").map((e) => [e.payload.tool_call_id, e.payload.return_value.output])).toEqual(
      expect.arrayContaining([["c1", "a done"], ["c2", "b done"]]),
    );
    expect(outline(contexts.a!).at(-1)).toBe("assistant:a done");
    expect(outline(contexts.b!).at(-1)).toBe("assistant:b done");
    expect(nested(events, "c1").every((e) => e.type !== "TurnEnd" || e.payload.stop_reason === "no_tool_calls")).toBe(true);
  });

  it("a child that fails gives an error result; the parent's model reads it and goes on", async () => {
    const { soul, context } = await family({
      parent: [script(call("c1", "Agent", { name: "scout", prompt: "look" })), "text: the scout failed, I will look myself"],
      children: { scout: ["error: status 400 bad request"] },
    });
    const { events, result } = await collect(soul.run("go"));
    expect(result.stopReason).toBe("no_tool_calls");
    const value = ofType(events, "ToolResult")[0]!.payload.return_value;
    expect(value.is_error).toBe(true);
    expect(value.message).toMatch(/^Agent agent-scout \(coder\) failed: /);
    expect(value.extras).toMatchObject({ agent_id: "agent-scout", stop_reason: "error" });
    expect(outline(context).at(-1)).toBe("assistant:the scout failed, I will look myself");
  });

  it("the parent's abort aborts the child: both contexts stay valid and the child's conversation restores", async () => {
    const dir = await tempDir();
    let started!: () => void;
    const childStarted = new Promise<void>((resolve) => (started = resolve));
    const wait = defineTool({
      name: "Wait",
      description: "Waits until cancelled.",
      parameters: z.object({}),
      execute: (_args, { signal }) =>
        new Promise((resolve) => {
          started();
          signal.addEventListener("abort", () => resolve(toolOk("cancelled")), { once: true });
        }),
    });
    const parentFile = path.join(dir, "parent.jsonl");
    const parentContext = new Context(parentFile);
    const { soul, contexts } = await family({
      parent: [script(call("c1", "Agent", { name: "slow", prompt: "wait" })), "text: never"],
      children: { slow: [script(call("w1", "Wait")), "text: never"] },
      childTools: [wait],
      childDir: dir,
      context: parentContext,
    });
    const controller = new AbortController();
    const turn = soul.run("go", { signal: controller.signal });
    const collecting = collect(turn);
    await childStarted;
    controller.abort();
    const { events, result } = await collecting;
    expect(result.stopReason).toBe("aborted");
    expect(ofType(nested(events, "c1"), "TurnEnd")[0]!.payload.stop_reason).toBe("aborted");
    await parentContext.close();
    await contexts.slow!.close();
    const parent = new Context(parentFile);
    await parent.restore();
    expect(outline(parent)).toEqual(["user:go", "assistant:+calls(c1)", expect.stringMatching(/^tool\[c1\]:/)]);
    const child = new Context(path.join(dir, "slow.jsonl"));
    const report = await child.restore();
    expect(report.skipped ?? []).toEqual([]);
    // The abort came while the child's step streamed or ran its tool: its user message is kept, the history is valid either way.
    expect(outline(child)[0]).toBe("user:wait");
    expect(validateConversation(child.history)).toEqual([]);
    await parent.close();
    await child.close();
  });

  it("asks the child's approvals through the parent's channel, named by the child; the parent's host answers", async () => {
    const { shell, ran } = approvingShell();
    const { soul } = await family({
      parent: [script(call("c1", "Agent", { name: "builder", prompt: "build" })), "text: built"],
      children: { builder: [script(call("s1", "Shell", { command: "make" })), "text: made"] },
      childTools: [shell],
    });
    const turn = soul.run("build it");
    const events: SoulEvent[] = [];
    for await (const event of turn) {
      events.push(event);
      if (event.type === "ApprovalRequest") soul.approval.respond(event.payload.id, "approve");
    }
    expect((await turn.result).stopReason).toBe("no_tool_calls");
    expect(ran).toEqual(["make"]);
    const requests = ofType(events, "ApprovalRequest").map((e) => e.payload);
    expect(requests).toEqual([{ id: requests[0]!.id, tool_call_id: "s1", sender: "builder/Shell", action: "run command", description: "make" }]);
    // Asked once, at the top level: not again inside the nested events.
    expect(nested(events, "c1").some((e) => e.type === "ApprovalRequest")).toBe(false);
    expect(ofType(events, "ToolResult")[0]!.payload.return_value.output).toBe("made");
  });

  it("the child's rejected call ends the child only: an error result for the parent", async () => {
    const { shell, ran } = approvingShell();
    const { soul } = await family({
      parent: [script(call("c1", "Agent", { name: "builder", prompt: "build" })), "text: the user said no"],
      children: { builder: [script(call("s1", "Shell", { command: "rm -rf /" })), "text: never"] },
      childTools: [shell],
    });
    const turn = soul.run("build it");
    for await (const event of turn) if (event.type === "ApprovalRequest") soul.approval.respond(event.payload.id, "reject");
    expect((await turn.result).stopReason).toBe("no_tool_calls");
    expect(ran).toEqual([]);
  });
});
