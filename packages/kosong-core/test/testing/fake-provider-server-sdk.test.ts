/**
 * The official SDKs parse what the fake provider server serves: scripted
 * messages in each wire format (streamed and not), recorded fixtures, status
 * errors with retry headers, in-stream errors, cuts and timeouts.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistantMessage, textPart, thinkPart, tokenUsage, toolCall } from "@kosong/core";
import { type FakeProviderServer, startFakeProviderServer } from "@kosong/core/testing";
import { fixture } from "@kosong/test-support";

let server: FakeProviderServer;
let openai: OpenAI;
let anthropic: Anthropic;

beforeEach(async () => {
  server = await startFakeProviderServer();
  openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "test", maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
});

afterEach(async () => {
  await server.close();
});

const twoCalls = assistantMessage(
  [textPart("Let me "), textPart("check.")],
  [toolCall("call_a", "weather", { city: "Paris" }), toolCall("call_b", "time", null)],
);
const usage = tokenUsage({ input_other: 20, output: 7, input_cache_read: 100, input_cache_creation: 3 });

describe("OpenAI Chat Completions", () => {
  it("the SDK stream helper assembles a scripted message with parallel tool calls and usage", async () => {
    server.enqueue({ message: twoCalls, usage, argumentsChunkSize: 4 });
    const stream = openai.chat.completions.stream({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }], stream_options: { include_usage: true } });
    const completion = await stream.finalChatCompletion();
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBe("Let me check.");
    expect(choice.message.tool_calls).toEqual([
      { id: "call_a", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
      { id: "call_b", type: "function", function: { name: "time", arguments: "" } },
    ]);
    expect(completion.usage).toMatchObject({ prompt_tokens: 123, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 100 } });
    expect(server.requests[0]!.body).toMatchObject({ model: "gpt-4o", stream: true });
  });

  it("raw SDK iteration yields think parts under the reasoning key", async () => {
    server.enqueue({ message: assistantMessage([thinkPart("hmm"), textPart("ok")]), reasoningKey: "reasoning_content" });
    const stream = await openai.chat.completions.create({ model: "kimi-k2", messages: [], stream: true });
    const deltas: unknown[] = [];
    for await (const chunk of stream) for (const choice of chunk.choices) deltas.push(choice.delta);
    expect(deltas).toContainEqual({ reasoning_content: "hmm" });
    expect(deltas).toContainEqual({ content: "ok" });
  });

  it("non-stream create reads the scripted completion", async () => {
    server.enqueue({ message: twoCalls, usage, id: "chatcmpl-1" });
    const completion = await openai.chat.completions.create({ model: "gpt-4o", messages: [] });
    expect(completion.id).toBe("chatcmpl-1");
    expect(completion.choices[0]!.message.content).toBe("Let me check.");
    expect(completion.choices[0]!.message.tool_calls?.map((c) => c.id)).toEqual(["call_a", "call_b"]);
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBe(100);
  });

  it("a recorded parallel tool-call stream replays through the SDK", async () => {
    server.enqueue({ fixture: fixture("provider-streams/openai-chat-completions/stream-parallel-tool-calls.sse") });
    const completion = await openai.chat.completions.stream({ model: "gpt-4o", messages: [] }).finalChatCompletion();
    expect(completion.choices[0]!.message.tool_calls).toHaveLength(2);
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("an in-stream error throws APIError without a status", async () => {
    server.enqueue({ message: assistantMessage("partial answer"), error: { type: "server_error", message: "The server had an error" }, errorAfter: 2 });
    const stream = await openai.chat.completions.create({ model: "gpt-4o", messages: [], stream: true });
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? "");
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBeUndefined();
    expect((failure as Error).message).toContain("The server had an error");
    expect(seen).toEqual(["", "partial answer"]);
  });

  it("status errors carry the code, the request id and honour retry-after-ms", async () => {
    server.enqueue(
      { status: 429, body: { error: { message: "You exceeded your current quota", type: "insufficient_quota", param: null, code: "insufficient_quota" } }, headers: { "x-request-id": "req_q" } },
      { status: 503, body: { error: { message: "overloaded", type: "service_unavailable_error", param: null, code: null } }, headers: { "retry-after-ms": "1" } },
      { message: assistantMessage("after retry") },
    );
    const quota = await openai.chat.completions.create({ model: "m", messages: [] }).catch((error: unknown) => error);
    expect(quota).toBeInstanceOf(OpenAI.RateLimitError);
    expect(quota).toMatchObject({ status: 429, code: "insufficient_quota", requestID: "req_q" });
    const retrying = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "test", maxRetries: 1 });
    const completion = await retrying.chat.completions.create({ model: "m", messages: [] });
    expect(completion.choices[0]!.message.content).toBe("after retry");
    expect(server.requests).toHaveLength(3);
  });

  it("a slow response becomes the SDK's timeout error; a cut stream rejects the iteration", async () => {
    server.enqueue({ message: assistantMessage("late"), delayMs: 60_000 }, { message: assistantMessage("cut short"), cutAfter: 2 });
    const slow = await openai.chat.completions.create({ model: "m", messages: [] }, { timeout: 100 }).catch((error: unknown) => error);
    expect(slow).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    const stream = await openai.chat.completions.create({ model: "m", messages: [], stream: true });
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? "");
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(seen).toEqual(["", "cut short"]);
  });

  it("queue exhaustion surfaces through the SDK with the server's explanation", async () => {
    const failure = await openai.chat.completions.create({ model: "m", messages: [] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.InternalServerError);
    expect((failure as Error).message).toContain("no response queued");
  });
});

describe("Anthropic Messages", () => {
  const thinking = assistantMessage(
    [thinkPart("first I"), thinkPart(" think", "sig-1"), thinkPart("", "redacted-blob"), textPart("Here "), textPart("goes")],
    [toolCall("toolu_1", "weather", { city: "Paris" }), toolCall("toolu_2", "time", null)],
  );

  it("the SDK stream helper rebuilds thinking with its signature, redacted thinking, text, tool inputs and usage", async () => {
    server.enqueue({ message: thinking, usage, id: "msg_1", argumentsChunkSize: 3 });
    const message = await anthropic.messages.stream({ model: "claude-x", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(message.id).toBe("msg_1");
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toEqual([
      { type: "thinking", thinking: "first I think", signature: "sig-1" },
      { type: "redacted_thinking", data: "redacted-blob" },
      { type: "text", text: "Here goes" },
      { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } },
      { type: "tool_use", id: "toolu_2", name: "time", input: {} },
    ]);
    expect(message.usage).toMatchObject({ input_tokens: 20, output_tokens: 7, cache_read_input_tokens: 100, cache_creation_input_tokens: 3 });
  });

  it("non-stream create reads the scripted message", async () => {
    server.enqueue({ message: thinking, usage });
    const message = await anthropic.messages.create({ model: "claude-x", max_tokens: 100, messages: [] });
    expect(message.content.map((b) => b.type)).toEqual(["thinking", "redacted_thinking", "text", "tool_use", "tool_use"]);
    expect(message.usage.cache_read_input_tokens).toBe(100);
  });

  it("a recorded thinking stream replays through the SDK with its signature", async () => {
    server.enqueue({ fixture: fixture("provider-streams/anthropic-messages/stream-thinking-then-tool-use.sse") });
    const message = await anthropic.messages.stream({ model: "claude-x", max_tokens: 100, messages: [] }).finalMessage();
    const block = message.content[0];
    expect(block?.type).toBe("thinking");
    expect(block?.type === "thinking" && block.signature.length > 0).toBe(true);
    expect(message.content.at(-1)?.type).toBe("tool_use");
  });

  it("an in-stream overloaded error throws APIError without a status", async () => {
    server.enqueue({ message: assistantMessage("partial"), error: { type: "overloaded_error", message: "Overloaded" } });
    const failure = await anthropic.messages
      .stream({ model: "claude-x", max_tokens: 100, messages: [] })
      .finalMessage()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect((failure as InstanceType<typeof Anthropic.APIError>).status).toBeUndefined();
    expect((failure as Error).message).toContain("Overloaded");
  });

  it("529 overloaded: OverloadedError with the request id, and one retry succeeds with retry-after-ms", async () => {
    const overloaded = { status: 529, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, headers: { "retry-after-ms": "1", "request-id": "req_1" } };
    server.enqueue(overloaded, overloaded, { message: assistantMessage("hi") });
    const failure = await anthropic.messages.create({ model: "claude-x", max_tokens: 100, messages: [] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.OverloadedError);
    expect(failure).toMatchObject({ status: 529, requestID: "req_1" });
    const retrying = new Anthropic({ baseURL: server.url, apiKey: "test", maxRetries: 1 });
    const message = await retrying.messages.create({ model: "claude-x", max_tokens: 100, messages: [] });
    expect(message.content).toEqual([{ type: "text", text: "hi" }]);
    expect(server.requests).toHaveLength(3);
  });
});

describe("OpenAI Responses", () => {
  const reasoned = assistantMessage(
    [thinkPart("step one", "enc-1"), thinkPart("step two", "enc-1"), textPart("The "), textPart("answer")],
    [toolCall("call_1", "add", { a: 1 })],
  );

  it("the SDK stream helper rebuilds reasoning, message and function call items with usage", async () => {
    server.enqueue({ message: reasoned, usage, id: "resp_1" });
    const response = await openai.responses.stream({ model: "gpt-5", input: "hi" }).finalResponse();
    expect(response.id).toBe("resp_1");
    expect(response.status).toBe("completed");
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "message", "function_call"]);
    const [reasoning, message, call] = response.output;
    expect(reasoning).toMatchObject({ encrypted_content: "enc-1", summary: [{ type: "summary_text", text: "step one" }, { type: "summary_text", text: "step two" }] });
    expect(message).toMatchObject({ content: [{ type: "output_text", text: "The answer" }] });
    expect(call).toMatchObject({ call_id: "call_1", name: "add", arguments: '{"a":1}' });
    expect(response.output_text).toBe("The answer");
    expect(response.usage).toMatchObject({ input_tokens: 123, output_tokens: 7, input_tokens_details: { cached_tokens: 100 } });
  });

  it("non-stream create reads the scripted response; max_tokens makes it incomplete", async () => {
    server.enqueue({ message: reasoned, usage }, { message: assistantMessage("trunc"), finishReason: "max_tokens" });
    const response = await openai.responses.create({ model: "gpt-5", input: "hi" });
    expect(response.output_text).toBe("The answer");
    const truncated = await openai.responses.create({ model: "gpt-5", input: "hi" });
    expect(truncated.status).toBe("incomplete");
    expect(truncated.incomplete_details).toEqual({ reason: "max_output_tokens" });
  });

  it("a recorded JSONL turn replays through the SDK", async () => {
    server.enqueue({ fixture: fixture("provider-streams/openai-responses/stream-reasoning-summary-tool-loop.turn1.chunks.jsonl") });
    const response = await openai.responses.stream({ model: "gpt-5", input: "hi" }).finalResponse();
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "function_call"]);
  });

  it("an in-stream error event throws APIError", async () => {
    server.enqueue({ message: assistantMessage("x"), error: { type: "insufficient_quota", code: "insufficient_quota", message: "You exceeded your current quota" }, errorAfter: 2 });
    const stream = await openai.responses.create({ model: "gpt-5", input: "hi", stream: true });
    const types: string[] = [];
    const failure = await (async () => {
      for await (const event of stream) types.push(event.type);
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as Error).message).toContain("You exceeded your current quota");
    expect(types).toEqual(["response.created", "response.in_progress"]);
  });
});
