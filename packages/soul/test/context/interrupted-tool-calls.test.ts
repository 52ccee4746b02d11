/**
 * A tool call whose result a crash lost gets the interrupted result on
 * restore, so every later request is valid: appended to the log when the
 * call ends the history (a real process killed mid-step), in memory only
 * when the history goes on after it (a kimi-cli session continued after a
 * crash). The loop answers an aborted tool with the same message.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assistantMessage, serializeMessage, toolCall, toolMessage, userMessage, type Message } from "@kosong/core";
import { MemoryContextLog } from "@kosong/context";
import { Context } from "@kosong/soul";
import { validateConversation } from "@kosong/soul/conversation";
import { TOOL_INTERRUPTED_MESSAGE, interruptedToolMessage, interruptedToolResult } from "@kosong/soul/internal";
import { killWhenReady } from "./helpers/kill-child.js";
import { tempDir } from "@kosong/test-support";

const interrupted = (id: string): Message => ({ role: "tool", content: [{ type: "text", text: `<system>ERROR: ${TOOL_INTERRUPTED_MESSAGE}</system>` }], tool_call_id: id });

/** Runs children/crash-child.ts until it has appended the calls, then SIGKILLs it. */
const crashMidStep = (file: string) => killWhenReady("crash-child.ts", [file], "calls appended");

describe("interrupted tool calls", () => {
  it("the helpers build the loop's and restore's one interrupted result", () => {
    expect(interruptedToolMessage("c9")).toEqual(interrupted("c9"));
    const result = interruptedToolResult("c9");
    expect(result.tool_call_id).toBe("c9");
    expect(result.return_value.is_error).toBe(true);
    expect(result.return_value.message).toBe(TOOL_INTERRUPTED_MESSAGE);
  });

  it("a process killed while its tools run: the next restore appends an interrupted result per call, once", async () => {
    const file = path.join(await tempDir(), "context.jsonl");
    await crashMidStep(file);
    const before = await readFile(file, "utf8");

    const context = new Context(file);
    const report = await context.restore();
    expect(report.interruptedToolCalls).toEqual([
      { toolCallId: "call_ls", appended: true },
      { toolCallId: "call_cat", appended: true },
    ]);
    expect(context.history.slice(-2)).toEqual([interrupted("call_ls"), interrupted("call_cat")]);
    expect(validateConversation(context.history)).toEqual([]);
    const history = context.history.map((m) => structuredClone(m));
    await context.close();

    // Appended at the end, the file before it untouched.
    const after = await readFile(file, "utf8");
    expect(after.slice(0, before.length)).toBe(before);
    expect(after.slice(before.length)).toBe(`${serializeMessage(interrupted("call_ls"))}\n${serializeMessage(interrupted("call_cat"))}\n`);

    const again = new Context(file);
    expect((await again.restore()).interruptedToolCalls).toEqual([]);
    expect(again.history).toEqual(history);
    await again.close();
  });

  it("a call answered in part gets results only for the rest, after the results it has", async () => {
    const log = new MemoryContextLog();
    const writer = new Context(log);
    await writer.appendMessage([userMessage("go"), assistantMessage("", [toolCall("a", "T"), toolCall("b", "T"), toolCall("c", "T")])]);
    await writer.appendMessage(toolMessage("b", "done"));
    const reopened = new Context(log);
    const report = await reopened.restore();
    expect(report.interruptedToolCalls.map((c) => c.toolCallId)).toEqual(["a", "c"]);
    expect(reopened.history.slice(2)).toEqual([toolMessage("b", "done"), interrupted("a"), interrupted("c")]);
  });

  it("a kimi-cli session continued after a crash: the result is inserted in memory only, and reverts keep it", async () => {
    const file = path.join(await tempDir(), "context.jsonl");
    const lines = [
      '{"role": "_checkpoint", "id": 0}',
      serializeMessage(userMessage("first")),
      '{"role": "_checkpoint", "id": 1}',
      serializeMessage(assistantMessage("", [toolCall("lost", "Shell", { command: "ls" })])),
      '{"role": "_usage", "token_count": 300}',
      '{"role": "_checkpoint", "id": 2}',
      serializeMessage(userMessage("second")),
      '{"role": "_checkpoint", "id": 3}',
      serializeMessage(assistantMessage("ok")),
    ];
    await writeFile(file, lines.map((l) => `${l}\n`).join(""));
    const before = await readFile(file, "utf8");

    const context = new Context(file);
    expect((await context.restore()).interruptedToolCalls).toEqual([{ toolCallId: "lost", appended: false }]);
    expect(context.history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user", "assistant"]);
    expect(context.history[2]).toEqual(interrupted("lost"));
    expect(validateConversation(context.history)).toEqual([]);
    expect(context.checkpoints.map((c) => c.messageCount)).toEqual([0, 1, 3, 4]);
    expect(await readFile(file, "utf8")).toBe(before);

    await context.revertTo(3);
    expect(context.history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    // The inserted result counts as before the `_usage` that followed its call: pending is "second" alone.
    expect(context.tokenCountWithPending).toBe(300 + Math.floor("second".length / 4));
    await context.revertTo(2);
    expect(context.history.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(validateConversation(context.history)).toEqual([]);
    await context.close();
  });

  it("a revert to a checkpoint between a call and its results answers the call again, in the log", async () => {
    const log = new MemoryContextLog();
    const writer = new Context(log);
    await writer.appendMessage([userMessage("go"), assistantMessage("", [toolCall("x", "T")])]);
    await writer.checkpoint({ label: "between" });
    await writer.appendMessage(toolMessage("x", "result"));
    const context = new Context(log);
    await context.restore();
    await context.revertTo("between");
    expect(context.history.at(-1)).toEqual(interrupted("x"));
    const again = new Context(log);
    await again.restore();
    expect(again.history).toEqual(context.history);
  });
});
