/**
 * Retries of a failed LLM call: which errors are retried, how long the soul
 * waits (backoff, jitter, retry-after), that a failed attempt leaves nothing
 * in the context, and that an abort cuts a wait short.
 */
import { APIConnectionError, APIStatusError, defineTool, toolOk } from "@kosong/core";
import { z } from "zod";
import { defaultSoulConfig } from "@kosong/soul";
import { retryDelay } from "@kosong/soul/internal";
import { describe, expect, it } from "vitest";
import { call, collect, ofType, outline, script, testSoul, types } from "./helpers.js";

describe("retries", () => {
  it("retries a 429 after the delay the server asked for, then succeeds", async () => {
    const { soul, context, provider } = await testSoul({
      scripts: ["error: 429 retry_after_ms=20 Slow down", "text: done"],
      config: { retry: { initialDelayMs: 1, maxDelayMs: 1, jitterMs: 0, maxRetryAfterMs: 60_000 } },
    });
    const { events, result } = await collect(soul.run("hi"));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(provider.calls).toHaveLength(2);
    expect(ofType(events, "StepRetry").map((e) => e.payload)).toEqual([
      { n: 1, attempt: 1, delay_ms: 20, error: "Slow down", error_type: "APIStatusError" },
    ]);
    expect(outline(context)).toEqual(["user:hi", "assistant:done"]);
  });

  it("never writes the parts of an attempt whose stream was cut", async () => {
    const { soul, context } = await testSoul({ scripts: ["text: half an ans\nerror: connection stream cut", "text: the whole answer"] });
    const { events, result } = await collect(soul.run("hi"));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(types(events)).toEqual(["TurnBegin", "Warning", "CheckpointCreated", "StepBegin", "CheckpointCreated", "TextPart", "StepRetry", "TextPart", "StatusUpdate", "TurnEnd"]);
    expect(outline(context)).toEqual(["user:hi", "assistant:the whole answer"]);
  });

  it("never writes the message or the tool results of an attempt cut in the middle of a tool call", async () => {
    const echo = defineTool({ name: "echo", description: "Echoes.", parameters: z.object({ text: z.string() }), execute: ({ text }) => toolOk(text) });
    const cut = script("text: first try", call("c1", "echo", { text: "one" }), 'tool_call: {"id": "c2", "name": "echo", "arguments": "{\\"text\\": \\"tw"}', "error: connection cut");
    const { soul, context } = await testSoul({ tools: [echo], scripts: [cut, script("text: second try", call("c3", "echo", { text: "three" })), "text: done"] });
    const { result, events } = await collect(soul.run("go"));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(ofType(events, "StepRetry")).toHaveLength(1);
    expect(outline(context)).toEqual(["user:go", "assistant:second try+calls(c3)", "tool[c3]:three", "assistant:done"]);
  });

  it("retries connection errors, timeouts, empty responses and 5xx/529", async () => {
    const { soul, provider } = await testSoul({
      scripts: ["error: connection", "error: timeout", "think: only thinking", "error: 529 overloaded", "text: ok"],
      config: { maxRetriesPerStep: 4 },
    });
    const { result, events } = await collect(soul.run("hi"));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(provider.calls).toHaveLength(5);
    expect(ofType(events, "StepRetry").map((e) => e.payload.error_type)).toEqual(["APIConnectionError", "APITimeoutError", "APIEmptyResponseError", "APIStatusError"]);
  });

  it("does not retry quota exhaustion or a client error", async () => {
    for (const failure of ["error: 429 code=insufficient_quota You exceeded your quota", "error: 401 unauthorized"]) {
      const { soul, provider } = await testSoul({ scripts: [failure, "text: never"] });
      const { result, events } = await collect(soul.run("hi"));
      expect(result.stopReason).toBe("error");
      expect(provider.calls).toHaveLength(1);
      expect(ofType(events, "StepRetry")).toEqual([]);
    }
  });

  it("reports the tokens of a turn that fails with a 400 after the stream reported its usage, and of a retried attempt", async () => {
    const used = (input: number, output: number) => `usage: {"input_other": ${input}, "output": ${output}}`;
    const { soul } = await testSoul({
      scripts: [script(call("c1", "Missing"), used(100, 5)), script("text: half", used(200, 7), "error: connection cut"), script("text: half again", used(300, 9), "error: 400 bad request")],
    });
    const { events, result } = await collect(soul.run("hi"));
    expect(result.stopReason).toBe("error");
    // The first step, the retried attempt and the failed one: all reported, all counted.
    const expected = { input_other: 600, output: 21, input_cache_read: 0, input_cache_creation: 0 };
    expect(result.usage).toEqual(expected);
    expect(ofType(events, "TurnEnd")[0]!.payload.usage).toEqual(expected);
  });

  it("gives up after maxRetriesPerStep retries with the last error", async () => {
    const { soul, provider, context } = await testSoul({ scripts: ["error: 503 a", "error: 503 b", "error: 503 c", "text: never"], config: { maxRetriesPerStep: 2 } });
    const { result, events } = await collect(soul.run("hi"));
    expect(result.stopReason).toBe("error");
    expect(APIStatusError.isInstance(result.error)).toBe(true);
    expect(result.error?.message).toBe("c");
    expect(provider.calls).toHaveLength(3);
    expect(ofType(events, "StepRetry")).toHaveLength(2);
    expect(outline(context)).toEqual(["user:hi"]);
  });

  it("stops waiting at once when the turn is aborted during a retry wait", async () => {
    const { soul, provider } = await testSoul({
      scripts: ["error: 503 busy", "text: never"],
      config: { retry: { initialDelayMs: 600_000, maxDelayMs: 600_000, jitterMs: 0 } },
    });
    const controller = new AbortController();
    const turn = soul.run("hi", { signal: controller.signal });
    const seen: string[] = [];
    for await (const event of turn) {
      seen.push(event.type);
      if (event.type === "StepRetry") controller.abort();
    }
    expect((await turn.result).stopReason).toBe("aborted");
    expect(provider.calls).toHaveLength(1);
    expect(seen.slice(-2)).toEqual(["StepInterrupted", "TurnEnd"]);
  });
});

describe("retryDelay", () => {
  const timing = defaultSoulConfig.retry;
  const connection = new APIConnectionError("cut");

  it("doubles from 0.3 s, adds up to 0.5 s of jitter, and caps at 5 s", () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelay(connection, n, timing, () => 0))).toEqual([300, 600, 1200, 2400, 4800, 5000]);
    expect(retryDelay(connection, 1, timing, () => 0.999)).toBeCloseTo(799.5);
    expect(retryDelay(connection, 9, timing, () => 0.999)).toBe(5000);
  });

  it("honours retry-after when it is longer, up to 60 s", () => {
    const asked = (ms: number) => new APIStatusError(429, "slow", { retryAfterMs: ms });
    expect(retryDelay(asked(2000), 1, timing, () => 0)).toBe(2000);
    expect(retryDelay(asked(10), 3, timing, () => 0)).toBe(1200);
    expect(retryDelay(asked(3_600_000), 1, timing, () => 0)).toBe(60_000);
  });
});
