/**
 * The host's D-Mail, `soul.rewrite()`: a past user message or tool result is
 * replaced, what followed is dropped (kept as a rotation, so it can be
 * undone), and the loop runs again from there.
 */
import { assistantMessage, defineTool, extractText, toolOk, userMessage, type Message } from "@kosong/core";
import { RewriteTargetError, SendDMail } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, collect, ofType, outline, script, testSoul } from "./helpers.js";

const read = defineTool({ name: "read", description: "Reads a file.", parameters: z.object({ path: z.string() }), execute: ({ path }) => toolOk(`contents of ${path}`) });

/** Answers with the text of every tool result it sees. */
const summarize = (history: readonly Message[]) =>
  `text: saw ${history
    .filter((m) => m.role === "tool")
    .map((m) => extractText(m))
    .join(" | ")}`;

async function afterOneTurn(extraTools: Parameters<typeof testSoul>[0]["tools"] = []) {
  const setup = await testSoul({
    onDisk: true,
    tools: [read, ...extraTools],
    scripts: [script("text: reading", call("c1", "read", { path: "a" }), call("c2", "read", { path: "b" })), summarize],
  });
  await collect(setup.soul.run("read a and b"));
  return setup;
}

describe("soul.rewrite", () => {
  it("replaces a user message, drops what followed and runs again", async () => {
    const { soul, context, provider } = await afterOneTurn();
    const before = outline(context);
    provider.push("text: only python files then");
    const { events, result } = await collect(soul.rewrite(0, "list the python files"));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(outline(context)).toEqual(["user:list the python files", "assistant:only python files then"]);
    expect(events[0]).toEqual({ type: "TurnBegin", payload: { user_input: [{ type: "text", text: "list the python files" }] } });
    expect(ofType(events, "Reverted").map((e) => e.payload)).toEqual([{ checkpoint_id: 0, reason: "rewrite" }]);

    // Undo: the rotation holds the conversation as it was.
    const rotations = await context.rotations();
    await context.restoreRotation(rotations.at(-1)!.n);
    expect(outline(context)).toEqual(before);
  });

  it("replaces one result of a parallel call and keeps the call's other results", async () => {
    const { soul, context, provider } = await afterOneTurn();
    provider.push(summarize);
    const { result } = await collect(soul.rewrite(2, "a was edited"));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(outline(context)).toEqual([
      "user:read a and b",
      "assistant:reading+calls(c1,c2)",
      "tool[c1]:a was edited",
      "tool[c2]:contents of b",
      "assistant:saw a was edited | contents of b",
    ]);
    expect(context.checkpoints.map((c) => [c.id, c.messageCount])).toEqual([[0, 0], [1, 1], [2, 4]]);
  });

  it("addresses messages as the host sees them, without the checkpoint messages D-Mail shows the model", async () => {
    const { soul, context, provider } = await afterOneTurn([SendDMail]);
    expect(outline(context).slice(0, 2)).toEqual(["user:read a and b", "user:<system>CHECKPOINT 1</system>"]);
    expect(outline(soul.history)).toEqual(outline(context).filter((line) => !line.includes("CHECKPOINT")));
    provider.push("text: second take");
    // Index 0 is the user's question, not the checkpoint message before it.
    await collect(soul.rewrite(0, "read only a"));
    expect(outline(context)).toEqual(["user:read only a", "user:<system>CHECKPOINT 1</system>", "assistant:second take"]);
    expect(context.checkpoints.map((c) => c.id)).toEqual([0, 1]);
  });

  it("clears the context when no checkpoint comes before the message, keeping the system prompt", async () => {
    const { soul, context, provider } = await testSoul({ onDisk: true, scripts: ["text: rewritten answer"] });
    await context.writeSystemPrompt("stored prompt");
    await context.appendMessage([userMessage("first question"), assistantMessage("first answer"), userMessage("second question")]);
    const { events } = await collect(soul.rewrite(2, "better second question"));
    expect(ofType(events, "Reverted").map((e) => e.payload)).toEqual([{ checkpoint_id: null, reason: "rewrite" }]);
    expect(outline(context)).toEqual(["user:first question", "assistant:first answer", "user:better second question", "assistant:rewritten answer"]);
    expect(context.systemPrompt).toBe("stored prompt");
    expect(provider.calls[0]!.systemPrompt).toBe("stored prompt");
    expect(await context.rotations()).toHaveLength(1);
  });

  it("refuses assistant and system messages, indexes outside the history and other roles", async () => {
    const { soul, context } = await afterOneTurn([SendDMail]);
    const length = soul.history.length;
    const cases: Array<[number, Parameters<typeof soul.rewrite>[1], RegExp]> = [
      [1, "x", /assistant message/],
      [length, "x", /indexes 0 to/],
      [-1, "x", /indexes 0 to/],
      [0, { role: "assistant", content: [] }, /replacement is a assistant message/],
      [2, { role: "tool", content: [], tool_call_id: "c2" }, /answers tool call c2/],
      [0, "  ", /replacement is empty/],
    ];
    for (const [index, replacement, message] of cases) {
      expect(() => soul.rewrite(index, replacement)).toThrowError(RewriteTargetError);
      expect(() => soul.rewrite(index, replacement)).toThrowError(message);
    }
    expect(soul.history).toHaveLength(length);
    expect(await context.rotations()).toEqual([]);
  });
});
