/**
 * Responses stream shapes the recordings do not cover (parallel calls with
 * interleaved argument deltas, calls without arguments, several summary
 * parts, truncation, failures inside a 200 stream, cuts, aborts, timeouts),
 * served by the fake server in the Responses wire framing to the official SDK.
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import {
  APIConnectionError,
  APIContextOverflowError,
  APIStatusError,
  APITimeoutError,
  ChatProviderError,
  isRetryable,
  tokenUsage,
  userMessage,
  type JsonValue,
} from "@kosong/core";
import { OpenAIResponsesProvider, type OpenAIResponsesProviderOptions } from "@kosong/core/openai";
import { collect } from "../helpers/collect.js";
import { useFakeProviderServer } from "../helpers/fake-server.js";

type Event = { [key: string]: JsonValue };

const responseId = "resp_test";
const usage = { input_tokens: 40, input_tokens_details: { cached_tokens: 30 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 47 };

function response(status: string, extra: Event = {}): Event {
  return { id: responseId, object: "response", status, output: [], error: null, incomplete_details: null, usage: null, ...extra };
}
const created: Event = { type: "response.created", response: response("in_progress") };
const completed: Event = { type: "response.completed", response: response("completed", { usage }) };

function callAdded(index: number, callId: string, name: string, args = ""): Event {
  return {
    type: "response.output_item.added",
    output_index: index,
    item: { type: "function_call", id: `fc_${index}`, call_id: callId, name, arguments: args, status: "in_progress" },
  };
}
function callDelta(index: number, delta: string): Event {
  return { type: "response.function_call_arguments.delta", item_id: `fc_${index}`, output_index: index, delta };
}
function callDone(index: number, callId: string, name: string, args: string): Event {
  return {
    type: "response.output_item.done",
    output_index: index,
    item: { type: "function_call", id: `fc_${index}`, call_id: callId, name, arguments: args, status: "completed" },
  };
}

const server = useFakeProviderServer();

function provider(options: Partial<OpenAIResponsesProviderOptions> = {}): OpenAIResponsesProvider {
  return new OpenAIResponsesProvider({ model: "gpt-5", apiKey: "test-key", baseURL: `${server.url}/v1`, ...options });
}

async function run(chunks: Event[], extra: { headers?: Record<string, string> } = {}) {
  server.enqueue({ chunks, ...extra });
  return collect(await provider().generate("", [], [userMessage("hi")]));
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

describe("function calls", () => {
  it("routes interleaved argument deltas of parallel calls by output_index", async () => {
    const { message, parts, stream } = await run([
      created,
      callAdded(0, "call_a", "add"),
      callAdded(1, "call_b", "mul"),
      callDelta(1, '{"x"'),
      callDelta(0, '{"y"'),
      callDelta(1, ":1}"),
      callDelta(0, ":2}"),
      callDone(0, "call_a", "add", '{"y":2}'),
      callDone(1, "call_b", "mul", '{"x":1}'),
      completed,
    ]);
    expect(message.tool_calls).toEqual([
      { type: "function", id: "call_a", function: { name: "add", arguments: '{"y":2}' } },
      { type: "function", id: "call_b", function: { name: "mul", arguments: '{"x":1}' } },
    ]);
    expect(parts.filter((p) => p.type === "tool_call_part").map((p) => p.index)).toEqual([1, 0, 1, 0]);
    expect(stream.finishReason).toBe("tool_calls");
    expect(stream.usage).toEqual(tokenUsage({ input_other: 10, input_cache_read: 30, output: 7 }));
    expect(stream.id).toBe(responseId);
  });

  it("gives a call without arguments `{}`, and a call whose arguments only come with the done item those", async () => {
    const { message } = await run([
      created,
      callAdded(0, "call_none", "now"),
      callDone(0, "call_none", "now", ""),
      callAdded(1, "call_late", "echo"),
      callDone(1, "call_late", "echo", '{"text":"hi"}'),
      completed,
    ]);
    expect(message.tool_calls?.map((c) => c.function.arguments)).toEqual(["{}", '{"text":"hi"}']);
  });

  it("gives a non-stream call without arguments `{}`", async () => {
    server.enqueue({
      status: 200,
      body: response("completed", {
        usage,
        output: [{ type: "function_call", id: "fc_0", call_id: "call_none", name: "now", arguments: "", status: "completed" }],
      }),
    });
    const { message, stream } = await collect(await provider({ stream: false }).generate("", [], [userMessage("hi")]));
    expect(message.tool_calls).toEqual([{ type: "function", id: "call_none", function: { name: "now", arguments: "{}" } }]);
    expect(stream.finishReason).toBe("tool_calls");
  });

  it("keeps a call truncated by max_output_tokens and reports max_tokens", async () => {
    const { message, stream } = await run([
      created,
      callAdded(0, "call_a", "write"),
      callDelta(0, '{"text":"once upon'),
      { type: "response.incomplete", response: response("incomplete", { usage, incomplete_details: { reason: "max_output_tokens" } }) },
    ]);
    expect(message.tool_calls).toEqual([{ type: "function", id: "call_a", function: { name: "write", arguments: '{"text":"once upon' } }]);
    expect(stream.finishReason).toBe("max_tokens");
    expect(stream.rawFinishReason).toBe("max_output_tokens");
    expect(stream.usage).toEqual(tokenUsage({ input_other: 10, input_cache_read: 30, output: 7 }));
  });
});

describe("text and reasoning", () => {
  it("joins the summary parts of one reasoning item and signs them with its encrypted content", async () => {
    const item = { type: "reasoning", id: "rs_0", summary: [], encrypted_content: null };
    const summaryDelta = (index: number, delta: string): Event => ({
      type: "response.reasoning_summary_text.delta",
      item_id: "rs_0",
      output_index: 0,
      summary_index: index,
      delta,
    });
    const partAdded = (index: number): Event => ({
      type: "response.reasoning_summary_part.added",
      item_id: "rs_0",
      output_index: 0,
      summary_index: index,
      part: { type: "summary_text", text: "" },
    });
    const { message } = await run([
      created,
      { type: "response.output_item.added", output_index: 0, item },
      partAdded(0),
      summaryDelta(0, "**Plan**"),
      summaryDelta(0, " first"),
      partAdded(1),
      summaryDelta(1, "**Check**"),
      { type: "response.output_item.done", output_index: 0, item: { ...item, encrypted_content: "enc_1" } },
      { type: "response.output_item.added", output_index: 1, item: { type: "message", id: "msg_1", role: "assistant", content: [] } },
      { type: "response.output_text.delta", item_id: "msg_1", output_index: 1, content_index: 0, delta: "Done" },
      { type: "response.refusal.delta", item_id: "msg_1", output_index: 1, content_index: 1, delta: " (refused the rest)" },
      completed,
    ]);
    expect(message.content).toEqual([
      { type: "think", think: "**Plan** first\n\n**Check**", encrypted: "enc_1" },
      { type: "text", text: "Done (refused the rest)" },
    ]);
  });

  it("reads raw reasoning_text deltas (open-weight models behind compatible servers) as think", async () => {
    const { message } = await run([
      created,
      { type: "response.reasoning_text.delta", item_id: "rs_0", output_index: 0, content_index: 0, delta: "Let me think." },
      { type: "response.output_text.delta", item_id: "msg_1", output_index: 1, content_index: 0, delta: "42" },
      completed,
    ]);
    expect(message.content).toEqual([
      { type: "think", think: "Let me think.", encrypted: null },
      { type: "text", text: "42" },
    ]);
  });
});

describe("failures inside a 200 stream", () => {
  it("response.failed with server_error is a retryable 500 carrying the request id", async () => {
    const error = await failure(
      run(
        [
          created,
          { type: "response.output_text.delta", item_id: "m", output_index: 0, content_index: 0, delta: "Hel" },
          { type: "response.failed", response: response("failed", { error: { code: "server_error", message: "The server had an error." } }) },
        ],
        { headers: { "x-request-id": "req_failed" } },
      ),
    );
    expect(APIStatusError.isInstance(error)).toBe(true);
    const e = error as APIStatusError;
    expect([e.statusCode, e.errorCode, e.requestId, e.message]).toEqual([500, "server_error", "req_failed", "500 server_error: The server had an error."]);
    expect(isRetryable(e)).toBe(true);
  });

  it("response.failed with invalid_prompt blames the request (400, not retryable)", async () => {
    const error = await failure(
      run([created, { type: "response.failed", response: response("failed", { error: { code: "invalid_prompt", message: "Invalid prompt." } }) }]),
    );
    expect((error as APIStatusError).statusCode).toBe(400);
    expect(isRetryable(error)).toBe(false);
  });

  it("an error event in the documented flat shape is typed by its code (context overflow)", async () => {
    const error = await failure(
      run([created, { type: "error", code: "context_length_exceeded", message: "Your input exceeds the context window of this model.", param: "input" }]),
    );
    expect(APIContextOverflowError.isInstance(error)).toBe(true);
    expect(isRetryable(error)).toBe(false);
  });

  it("an error event in bare `data:` frames (no event line) is still typed", async () => {
    server.enqueue({
      sse: [
        `data: ${JSON.stringify(created)}\n\n`,
        `data: ${JSON.stringify({ type: "error", code: "rate_limit_exceeded", message: "Slow down.", param: null })}\n\n`,
      ],
    });
    const error = await failure(collect(await provider().generate("", [], [userMessage("hi")])));
    expect((error as APIStatusError).statusCode).toBe(429);
    expect(isRetryable(error)).toBe(true);
  });

  it("a stream that ends without response.completed is a connection error", async () => {
    const error = await failure(
      run([created, { type: "response.output_text.delta", item_id: "m", output_index: 0, content_index: 0, delta: "Hel" }]),
    );
    expect(APIConnectionError.isInstance(error)).toBe(true);
    expect(isRetryable(error)).toBe(true);
  });
});

describe("transport", () => {
  const longStream: Event[] = [
    created,
    ...Array.from({ length: 20 }, (_, i): Event => ({ type: "response.output_text.delta", item_id: "m", output_index: 0, content_index: 0, delta: `w${i} ` })),
    completed,
  ];

  it("a connection cut mid-stream is an APIConnectionError after the parts already received", async () => {
    server.enqueue({ chunks: longStream, cutAfter: 5 });
    const stream = await provider().generate("", [], [userMessage("hi")]);
    const received: string[] = [];
    const error = await failure(
      (async () => {
        for await (const part of stream) if (part.type === "text") received.push(part.text);
      })(),
    );
    expect(APIConnectionError.isInstance(error)).toBe(true);
    expect(received).toEqual(["w0 ", "w1 ", "w2 ", "w3 "]);
  });

  it("an abort mid-stream ends with an AbortError, never a provider error", async () => {
    server.enqueue({ chunks: longStream, chunkDelayMs: 20 });
    const controller = new AbortController();
    const stream = await provider().generate("", [], [userMessage("hi")], { signal: controller.signal });
    const error = await failure(
      (async () => {
        for await (const _ of stream) controller.abort();
      })(),
    );
    expect((error as Error).name).toBe("AbortError");
    expect(ChatProviderError.isInstance(error)).toBe(false);
    expect(isRetryable(error)).toBe(false);
  });

  it("an abort before the response is an AbortError", async () => {
    server.enqueue({ chunks: longStream, delayMs: 2000 });
    const controller = new AbortController();
    const pending = provider().generate("", [], [userMessage("hi")], { signal: controller.signal });
    controller.abort();
    const error = await failure(pending);
    expect((error as Error).name).toBe("AbortError");
  });

  it("a server slower than `timeout` is an APITimeoutError", async () => {
    server.enqueue({ chunks: longStream, delayMs: 3000 });
    const error = await failure(provider({ timeout: 100 }).generate("", [], [userMessage("hi")]));
    expect(APITimeoutError.isInstance(error)).toBe(true);
    expect(isRetryable(error)).toBe(true);
  });

  it("`timeout` applies to a caller-supplied client too", async () => {
    server.reset();
    server.enqueue({ chunks: longStream, delayMs: 3000 });
    const client = new OpenAI({ apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0 });
    const error = await failure(provider({ client, timeout: 100 }).generate("", [], [userMessage("hi")]));
    expect(APITimeoutError.isInstance(error)).toBe(true);
    server.reset();
  });
});
