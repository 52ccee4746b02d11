/**
 * End to end, through each real SDK provider and the fake provider server,
 * with a real `context.jsonl`: a multi-step turn with parallel tools, a 429
 * with `retry-after` then success, a stream cut mid-way then success, and a
 * stream that fails after a tool already ran.
 * Each checks the events, the outcome and what the file restores to.
 */
import { assistantMessage, defineTool, textPart, tokenUsage, toolCall, toolOk } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { useFakeProviderServer } from "./helpers/fake-server.js";
import { families, sentToolResults } from "./helpers/providers.js";
import { collect, ofType, outline, reopen, soulOnDisk, SYSTEM_PROMPT } from "./helpers/soul-on-disk.js";

const server = useFakeProviderServer();

/**
 * Adds. A call with a small `a` first waits until a call with a large `a`
 * has finished, so the second call finishes first: results must still come
 * back in call order.
 */
const ran: string[] = [];
/** Resolves once a call with a large `a` has run. */
function gate(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
let largeDone = gate();
const add = defineTool({
  name: "add",
  description: "Adds two integers.",
  parameters: z.object({ a: z.int(), b: z.int() }),
  async execute({ a, b }) {
    if (a < 5) await largeDone.promise;
    ran.push(`${a}+${b}`);
    if (a >= 5) largeDone.resolve();
    return toolOk(`sum=${a + b}`);
  },
});

const oneUsage = tokenUsage({ input_other: 40, output: 30 });
const twoUsage = tokenUsage({ input_other: 60, output: 12 });

describe.each(families)("Soul end to end with $name", ({ name, make, serverErrorType }) => {
  it("runs a multi-step turn with parallel tool calls and writes a file that restores to the same history", async () => {
    ran.length = 0;
    largeDone = gate();
    server.enqueue(
      { message: assistantMessage([textPart("Adding both.")], [toolCall("call_a", "add", { a: 2, b: 3 }), toolCall("call_b", "add", { a: 10, b: 20 })]), usage: oneUsage, argumentsChunkSize: 4 },
      { message: assistantMessage([textPart("Both: 5 and 30.")]), usage: twoUsage },
    );
    const { soul, context } = await soulOnDisk(make(server.url), [add]);
    const { events, result } = await collect(soul.run("Add 2+3 and 10+20."));

    expect(result).toMatchObject({ stopReason: "no_tool_calls", steps: 2 });
    expect(result.usage).toEqual(tokenUsage({ input_other: 100, output: 42 }));
    expect(ran).toEqual(["10+20", "2+3"]);
    // Events: the turn frame, two steps, both calls and both results (the fast one first), usage per step.
    expect(events[0]).toEqual({ type: "TurnBegin", payload: { user_input: "Add 2+3 and 10+20." } });
    expect(events.at(-1)).toMatchObject({ type: "TurnEnd", payload: { stop_reason: "no_tool_calls", steps: 2, error: null } });
    expect(ofType(events, "StepBegin").map((e) => e.payload.n)).toEqual([1, 2]);
    expect(ofType(events, "ToolCall").map((e) => [e.payload.id, e.payload.function.name])).toEqual([["call_a", "add"], ["call_b", "add"]]);
    // Each ToolCall is complete (final arguments, parsed) and comes before the call's result; the
    // arguments also streamed in fragments (ToolCallBegin + ToolCallPart) for live display.
    expect(ofType(events, "ToolCall").map((e) => [JSON.parse(e.payload.function.arguments!), e.payload.parsed_arguments])).toEqual([
      [{ a: 2, b: 3 }, { a: 2, b: 3 }],
      [{ a: 10, b: 20 }, { a: 10, b: 20 }],
    ]);
    for (const id of ["call_a", "call_b"]) {
      const at = (type: string) => events.findIndex((e) => e.type === type && (e.payload as { id?: string; tool_call_id?: string })[type === "ToolResult" ? "tool_call_id" : "id"] === id);
      expect(at("ToolCallBegin")).toBeLessThan(at("ToolCall"));
      expect(at("ToolCall")).toBeLessThan(at("ToolResult"));
    }
    expect(ofType(events, "ToolCallPart").length).toBeGreaterThan(2);
    expect(ofType(events, "ToolResult").map((e) => [e.payload.tool_call_id, e.payload.return_value.output])).toEqual([["call_b", "sum=30"], ["call_a", "sum=5"]]);
    expect(ofType(events, "StatusUpdate").map((e) => e.payload.token_usage)).toEqual([oneUsage, twoUsage]);
    expect(ofType(events, "StepInterrupted")).toEqual([]);

    // The model saw both results, in call order, on the second request.
    expect(server.requests).toHaveLength(2);
    expect(sentToolResults(server.requests[1]!)).toEqual({ call_a: "sum=5", call_b: "sum=30" });

    const expected = ["user:Add 2+3 and 10+20.", "assistant:Adding both.+calls(call_a,call_b)", "tool[call_a]:sum=5", "tool[call_b]:sum=30", "assistant:Both: 5 and 30."];
    expect(outline(context.history)).toEqual(expected);
    const history = context.history.map((m) => structuredClone(m));
    const restored = await reopen(context);
    expect(restored.history).toEqual(history);
    expect(restored.systemPrompt).toBe(SYSTEM_PROMPT);
  });

  it("waits as long as a 429's retry-after asks, then succeeds; the failed attempt leaves nothing", async () => {
    server.enqueue(
      { status: 429, headers: { "retry-after": "0.05" }, body: { type: "error", error: { type: "rate_limit_error", message: "Slow down, please." } } },
      { message: assistantMessage("Here I am."), usage: oneUsage },
    );
    const { soul, context } = await soulOnDisk(make(server.url));
    const { events, result } = await collect(soul.run("hello"));

    expect(result).toMatchObject({ stopReason: "no_tool_calls", steps: 1, usage: oneUsage });
    const retries = ofType(events, "StepRetry").map((e) => e.payload);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ n: 1, attempt: 1, delay_ms: 50, error_type: "APIStatusError" });
    expect(retries[0]!.error).toContain("Slow down, please.");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.rawBody).toBe(server.requests[0]!.rawBody);

    const restored = await reopen(context);
    expect(outline(restored.history)).toEqual(["user:hello", "assistant:Here I am."]);
  });

  it("retries a stream cut mid-way and keeps only the whole answer", async () => {
    const parts = ["The ", "whole ", "answer ", "comes ", "in ", "pieces."].map((text) => textPart(text));
    server.enqueue(
      // Cut after a few frames: past the stream's start, before its end (every format streams one delta per part).
      { message: assistantMessage(parts), usage: oneUsage, cutAfter: 6 },
      { message: assistantMessage(parts), usage: twoUsage },
    );
    const { soul, context } = await soulOnDisk(make(server.url));
    const { events, result } = await collect(soul.run("tell me"));

    // Anthropic reports the input tokens (and one output token) as the stream starts: the cut attempt's count too.
    const cutAttempt = name === "AnthropicProvider" ? { input_other: oneUsage.input_other, output: 1 } : { input_other: 0, output: 0 };
    const usage = tokenUsage({ input_other: twoUsage.input_other + cutAttempt.input_other, output: twoUsage.output + cutAttempt.output });
    expect(result).toMatchObject({ stopReason: "no_tool_calls", steps: 1, usage });
    const types = events.map((e) => e.type);
    const retryAt = types.indexOf("StepRetry");
    expect(retryAt).toBeGreaterThan(0);
    // Mid-way: the cut attempt had streamed text already, and the retry streamed all of it again.
    expect(types.slice(0, retryAt)).toContain("TextPart");
    const afterRetry = ofType(events.slice(retryAt), "TextPart").map((e) => e.payload.text).join("");
    expect(afterRetry).toBe("The whole answer comes in pieces.");
    expect(ofType(events, "StepRetry")[0]!.payload).toMatchObject({ n: 1, attempt: 1, error_type: "APIConnectionError" });

    const restored = await reopen(context);
    expect(outline(restored.history)).toEqual(["user:tell me", "assistant:The whole answer comes in pieces."]);
  });

  it("an attempt that fails after a tool ran leaves neither its message nor its result; the retry's are the ones kept", async () => {
    ran.length = 0;
    const calls = assistantMessage([textPart("Adding.")], [toolCall("call_a", "add", { a: 7, b: 1 }), toolCall("call_b", "add", { a: 8, b: 1 })]);
    server.enqueue(
      // The stream fails after both calls streamed: the first is complete (the second began), so it ran; the second never did.
      { message: calls, usage: oneUsage, error: { type: serverErrorType, message: "The server broke mid-answer." } },
      { message: calls, usage: oneUsage },
      { message: assistantMessage("8 and 9."), usage: twoUsage },
    );
    const { soul, context } = await soulOnDisk(make(server.url), [add]);
    const { events, result } = await collect(soul.run("Add 7+1 and 8+1."));

    expect(result).toMatchObject({ stopReason: "no_tool_calls", steps: 2 });
    expect(ofType(events, "StepRetry").map((e) => e.payload.n)).toEqual([1]);
    // call_a ran in the failed attempt and again in the retry; call_b only in the retry.
    expect(ran.toSorted()).toEqual(["7+1", "7+1", "8+1"]);
    expect(server.requests).toHaveLength(3);
    expect(sentToolResults(server.requests[2]!)).toEqual({ call_a: "sum=8", call_b: "sum=9" });
    expect(outline((await reopen(context)).history)).toEqual([
      "user:Add 7+1 and 8+1.",
      "assistant:Adding.+calls(call_a,call_b)",
      "tool[call_a]:sum=8",
      "tool[call_b]:sum=9",
      "assistant:8 and 9.",
    ]);
  });
});
