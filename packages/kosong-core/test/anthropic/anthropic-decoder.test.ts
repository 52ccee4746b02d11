/**
 * The pure parts of the Anthropic response mapping, for shapes the recorded
 * fixtures do not cover: compatible servers that deviate from the API, block
 * types kosong ignores, and SDK errors mapped directly.
 */
import Anthropic from "@anthropic-ai/sdk";
import { APIConnectionError, APIStatusError, APITimeoutError, ChatProviderError, isAbortError, type StreamedMessagePart } from "@kosong/core";
import {
  AnthropicStreamDecoder,
  anthropicEventOfSse,
  anthropicFinishReason,
  convertAnthropicError,
  type AnthropicWireEvent,
} from "@kosong/core/anthropic";
import { describe, expect, it } from "vitest";

function decodeAll(events: AnthropicWireEvent[]): { parts: StreamedMessagePart[]; decoder: AnthropicStreamDecoder } {
  const decoder = new AnthropicStreamDecoder();
  const parts: StreamedMessagePart[] = [];
  for (const event of events) {
    const part = decoder.decode(event);
    if (part !== null) parts.push(part);
  }
  return { parts, decoder };
}

describe("AnthropicStreamDecoder", () => {
  it("keeps a tool input that arrives whole in content_block_start (some compatible servers)", () => {
    const { parts } = decodeAll([
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t1", name: "f", input: { a: 1 } } },
      { type: "content_block_stop", index: 0 },
    ]);
    expect(parts).toEqual([{ type: "function", id: "t1", function: { name: "f", arguments: '{"a":1}' }, index: 0 }]);
  });

  it("ignores server tool blocks, citations and unknown events", () => {
    const { parts } = decodeAll([
      { type: "content_block_start", index: 0, content_block: { type: "server_tool_use", id: "s1", name: "web_search" } },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "" } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "web_search_tool_result" } },
      { type: "content_block_stop", index: 1 },
      { type: "content_block_start", index: 2, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 2, delta: { type: "citations_delta" } },
      { type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "found" } },
      { type: "content_block_stop", index: 2 },
      { type: "some_future_event" },
    ]);
    expect(parts).toEqual([{ type: "text", text: "found" }]);
  });

  it("has no usage before message_start and reads missing counters as 0", () => {
    const decoder = new AnthropicStreamDecoder();
    expect(decoder.usage).toBeNull();
    decoder.decode({ type: "message_start", message: { id: "m", usage: { output_tokens: 1 } } });
    expect(decoder.usage).toEqual({ input_other: 0, output: 1, input_cache_read: 0, input_cache_creation: 0 });
  });

  it("maps stop reasons", () => {
    expect(["end_turn", "stop_sequence", "tool_use", "max_tokens", "refusal", "pause_turn", "model_context_window_exceeded"].map(anthropicFinishReason)).toEqual([
      "stop",
      "stop",
      "tool_calls",
      "max_tokens",
      "refusal",
      "other",
      "max_tokens",
    ]);
    expect(anthropicFinishReason(null)).toBeNull();
    expect(anthropicFinishReason("brand_new_reason")).toBe("other");
  });
});

describe("anthropicEventOfSse", () => {
  it("skips pings and frames without an event name, as the SDK does", () => {
    expect(anthropicEventOfSse({ event: "ping", data: '{"type": "ping"}' }, null)).toBeNull();
    expect(anthropicEventOfSse({ event: null, data: '{"type":"message_stop"}' }, null)).toBeNull();
    expect(anthropicEventOfSse({ event: "message_stop", data: '{"type":"message_stop"}' }, null)).toEqual({ type: "message_stop" });
  });

  it("throws the typed error of an error event, also when its data is not JSON", () => {
    const headers = new Headers({ "request-id": "req_1" });
    let error: unknown;
    try {
      anthropicEventOfSse({ event: "error", data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' }, headers);
    } catch (e) {
      error = e;
    }
    expect((error as APIStatusError).statusCode).toBe(529);
    expect((error as APIStatusError).requestId).toBe("req_1");
    expect(() => anthropicEventOfSse({ event: "error", data: "upstream exploded" }, null)).toThrow("upstream exploded");
  });
});

describe("convertAnthropicError with the SDK's own error classes", () => {
  it("maps timeouts, connection errors and user aborts", () => {
    expect(APITimeoutError.isInstance(convertAnthropicError(new Anthropic.APIConnectionTimeoutError()))).toBe(true);
    const connection = convertAnthropicError(new Anthropic.APIConnectionError({ message: "Connection error.", cause: new Error("ECONNREFUSED") }));
    expect(APIConnectionError.isInstance(connection)).toBe(true);
    expect(APITimeoutError.isInstance(connection)).toBe(false);
    expect(isAbortError(convertAnthropicError(new Anthropic.APIUserAbortError()))).toBe(true);
  });

  it("maps transport failures under the SDK like the OpenAI providers do: a stalled body is a timeout, a cut socket a connection error", () => {
    // undici reports a stalled body as `TypeError: terminated` caused by UND_ERR_BODY_TIMEOUT (not provokable
    // here without undici's dispatcher), and a socket closed mid-body as `TypeError: terminated` caused by
    // UND_ERR_SOCKET.
    const stalled = new TypeError("terminated", { cause: Object.assign(new Error("Body Timeout Error"), { code: "UND_ERR_BODY_TIMEOUT" }) });
    expect(APITimeoutError.isInstance(convertAnthropicError(stalled))).toBe(true);
    const cut = new TypeError("terminated", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) });
    const connection = convertAnthropicError(cut);
    expect(APIConnectionError.isInstance(connection) && !APITimeoutError.isInstance(connection)).toBe(true);
    // A TypeError that is no transport failure (a bug, a bad value) is not passed off as a retryable connection error.
    const bug = convertAnthropicError(new TypeError("Cannot read properties of undefined (reading 'type')"));
    expect(ChatProviderError.isInstance(bug) && !APIConnectionError.isInstance(bug)).toBe(true);
  });

  it("prefers the signal's abort over anything else", () => {
    const controller = new AbortController();
    controller.abort();
    expect(isAbortError(convertAnthropicError(new Anthropic.APIConnectionError({ message: "x" }), controller.signal))).toBe(true);
  });

  it("maps an SDK status error and any other SDK error", () => {
    const headers = new Headers({ "request-id": "req_9", "retry-after": "2" });
    const body = { type: "error", error: { type: "rate_limit_error", message: "slow down" } };
    const error = convertAnthropicError(Anthropic.APIError.generate(429, body, undefined, headers)) as APIStatusError;
    expect([error.statusCode, error.requestId, error.retryAfterMs, error.errorType]).toEqual([429, "req_9", 2000, "rate_limit_error"]);
    expect(error.message).toBe("429 rate_limit_error: slow down");
    const other = convertAnthropicError(new Anthropic.AnthropicError("Streaming is required"));
    expect(ChatProviderError.isInstance(other)).toBe(true);
    expect(APIStatusError.isInstance(other)).toBe(false);
  });
});
