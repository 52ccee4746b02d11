/**
 * Error mapping of AnthropicProvider, through the official SDK against the
 * fake server: recorded error bodies (provider-streams/anthropic-messages and
 * the Anthropic entries of errors-reference), an error event inside a 200
 * stream, a connection cut, a timeout, an abort, a refused connection.
 */
import { getEventListeners } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import {
  APIConnectionError,
  APIContextOverflowError,
  APIQuotaExhaustedError,
  APIStatusError,
  APITimeoutError,
  ChatProviderError,
  isAbortError,
  isRetryable,
  userMessage,
  type JsonValue,
  type StreamedMessagePart,
} from "@kosong/core";
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it, vi } from "vitest";
import { fixture } from "@kosong/test-support";
import { anthropicFixture, anthropicProvider, collectParts, startServer, streamPaths } from "./helpers.js";
import { useFakeProviderServer } from "../helpers/fake-server.js";

interface ErrorReference {
  api: string;
  status: number;
  name: string;
  body: JsonValue;
  headers: Record<string, string>;
}

const references = (
  JSON.parse(readFileSync(fixture("provider-streams/errors-reference/error-bodies.json"), "utf8")) as ErrorReference[]
).filter((entry) => entry.api === "anthropic");

const history = [userMessage("Hi")];

const server = useFakeProviderServer({ resetBeforeEach: true });

/** The error `generate` + iteration throws. */
async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

async function generateAll(options: Parameters<typeof anthropicProvider>[1] = {}, signal?: AbortSignal): Promise<StreamedMessagePart[]> {
  const stream = await anthropicProvider(server, options).generate("", [], history, signal ? { signal } : {});
  return collectParts(stream);
}

describe("HTTP error statuses", () => {
  it("has the five Anthropic reference bodies", () => {
    expect(references.map((r) => r.status).sort()).toEqual([400, 401, 429, 500, 529]);
  });

  it.each(references.map((r) => [r.name, r] as const))("maps the reference %s", async (_name, ref) => {
    server.enqueue({ status: ref.status, body: ref.body, headers: ref.headers });
    const error = await failure(() => generateAll());
    expect(APIStatusError.isInstance(error)).toBe(true);
    const status = error as APIStatusError;
    expect(status.statusCode).toBe(ref.status);
    const body = ref.body as { error: { type: string; message: string }; request_id: string };
    expect(status.requestId).toBe(ref.headers["request-id"]);
    expect(status.errorType).toBe(body.error.type);
    expect(status.message).toContain(body.error.message);
    const overflow = body.error.message.startsWith("prompt is too long");
    expect(APIContextOverflowError.isInstance(error)).toBe(overflow);
    expect(isRetryable(error)).toBe([429, 500, 529].includes(ref.status));
    if (ref.headers["retry-after"]) expect(status.retryAfterMs).toBe(Number(ref.headers["retry-after"]) * 1000);
    else expect(status.retryAfterMs).toBeNull();
    // Retries belong to the soul: exactly one request, even for retryable statuses.
    expect(server.requests).toHaveLength(1);
  });

  it("covers every error fixture of provider-streams/anthropic-messages", () => {
    const files = readdirSync(fixture("provider-streams/anthropic-messages")).filter((f) => f.startsWith("error-"));
    expect(files.sort()).toEqual(["error-400-invalid-request.json", "error-404-not-found.json"]);
  });

  it("maps the recorded 404 not_found_error (request id from the body when no header carries it)", async () => {
    server.enqueue({ fixture: anthropicFixture("error-404-not-found.json") });
    const error = (await failure(() => generateAll())) as APIStatusError;
    expect(APIStatusError.isInstance(error)).toBe(true);
    expect(error.statusCode).toBe(404);
    expect(error.errorType).toBe("not_found_error");
    expect(error.requestId).toBe("req_011CdufXo8Y2LVfY2veyuQWG");
    expect(error.message).toContain("model: claude-sonet-4-5");
    expect(isRetryable(error)).toBe(false);
  });

  it("maps the recorded 400 invalid_request_error (not a context overflow)", async () => {
    server.enqueue({ fixture: anthropicFixture("error-400-invalid-request.json") });
    const error = (await failure(() => generateAll())) as APIStatusError;
    expect(error.statusCode).toBe(400);
    expect(error.errorType).toBe("invalid_request_error");
    expect(error.requestId).toBe("req_011Ca7jT9AHpgXgdv8igm4z9");
    expect(APIContextOverflowError.isInstance(error)).toBe(false);
    expect(isRetryable(error)).toBe(false);
  });

  it("prefers retry-after-ms over retry-after", async () => {
    server.enqueue({
      status: 529,
      body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
      headers: { "retry-after-ms": "250", "retry-after": "7", "request-id": "req_ms" },
    });
    const error = (await failure(() => generateAll())) as APIStatusError;
    expect(error.retryAfterMs).toBe(250);
    expect(error.requestId).toBe("req_ms");
    expect(isRetryable(error)).toBe(true);
  });

  it("maps billing_error to quota exhaustion, never retryable", async () => {
    server.enqueue({
      status: 402,
      body: { type: "error", error: { type: "billing_error", message: "Your credit balance is too low." } },
    });
    const error = await failure(() => generateAll());
    expect(APIQuotaExhaustedError.isInstance(error)).toBe(true);
    expect((error as APIStatusError).statusCode).toBe(402);
    expect(isRetryable(error)).toBe(false);
  });

  it("sends one request with a caller-supplied client that would retry itself", async () => {
    const client = new Anthropic({ apiKey: "k", baseURL: server.url, maxRetries: 3 });
    server.enqueue(
      { status: 529, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, headers: { "retry-after-ms": "1" } },
      { fixture: anthropicFixture("stream-text.sse") },
    );
    const error = await failure(() => generateAll({ client }));
    expect((error as APIStatusError).statusCode).toBe(529);
    expect(server.requests).toHaveLength(1);
  });
});

describe.each(streamPaths)("errors inside a 200 stream, %s", (_path, pathOptions) => {
  it("maps the mid-stream overloaded_error event to a retryable 529, after the parts before it", async () => {
    server.enqueue({
      fixture: fixture("provider-streams/errors-reference/anthropic-stream-midstream-overloaded.sse"),
      headers: { "request-id": "req_stream" },
    });
    const stream = await anthropicProvider(server, pathOptions(server)).generate("", [], history);
    const parts: StreamedMessagePart[] = [];
    const error = await failure(async () => {
      for await (const part of stream) parts.push(part);
    });
    expect(parts).toEqual([
      { type: "text", text: "-" },
      { type: "text", text: " Captain" },
    ]);
    expect(APIStatusError.isInstance(error)).toBe(true);
    const status = error as APIStatusError;
    expect(status.statusCode).toBe(529);
    expect(status.errorType).toBe("overloaded_error");
    expect(status.requestId).toBe("req_stream");
    expect(status.message).toContain("Overloaded");
    expect(isRetryable(error)).toBe(true);
    expect(stream.id).toBe("msg_017A4s3HAsrqf5d2WvBmrpLr");
  });

  it.each([
    ["rate_limit_error", 429, true],
    ["api_error", 500, true],
    ["invalid_request_error", 400, false],
  ] as const)("maps an in-stream %s to status %i", async (type, status, retryable) => {
    server.enqueue({
      sse: [
        'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
        `event: error\ndata: {"type":"error","error":{"type":"${type}","message":"boom"}}\n\n`,
      ],
    });
    const error = await failure(() => generateAll(pathOptions(server)));
    expect((error as APIStatusError).statusCode).toBe(status);
    expect(isRetryable(error)).toBe(retryable);
  });

  it("maps an in-stream prompt-too-long error to a context overflow", async () => {
    server.enqueue({
      sse: [`event: error\ndata: {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 205351 tokens > 200000 maximum"}}\n\n`],
    });
    const error = await failure(() => generateAll(pathOptions(server)));
    expect(APIContextOverflowError.isInstance(error)).toBe(true);
  });

  it("maps an in-stream error of an unknown type to a non-retryable ChatProviderError", async () => {
    server.enqueue({ sse: ['event: error\ndata: {"type":"error","error":{"type":"mystery_error","message":"??"}}\n\n'] });
    const error = await failure(() => generateAll(pathOptions(server)));
    expect(ChatProviderError.isInstance(error)).toBe(true);
    expect(APIStatusError.isInstance(error)).toBe(false);
    expect((error as Error).message).toContain("mystery_error");
    expect(isRetryable(error)).toBe(false);
  });
});

describe.each(streamPaths)("stream cut short, %s", (_path, pathOptions) => {
  it("maps a connection cut mid-stream to APIConnectionError, after the parts before it", async () => {
    server.enqueue({ fixture: anthropicFixture("stream-text.sse"), cutAfter: 5 });
    const stream = await anthropicProvider(server, pathOptions(server)).generate("", [], history);
    const parts: StreamedMessagePart[] = [];
    const error = await failure(async () => {
      for await (const part of stream) parts.push(part);
    });
    expect(APIConnectionError.isInstance(error)).toBe(true);
    expect(isRetryable(error)).toBe(true);
    expect(parts).toEqual([
      { type: "text", text: "-" },
      { type: "text", text: " Captain" },
    ]);
  });

  it("maps a stream that ends cleanly before message_stop to APIConnectionError", async () => {
    const frames = readFileSync(anthropicFixture("stream-text.sse"), "utf8").split("\n\n").slice(0, 6);
    server.enqueue({ sse: frames.map((f) => `${f}\n\n`) });
    const error = await failure(() => generateAll(pathOptions(server)));
    expect(APIConnectionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/ended before the message was complete/);
  });

});

describe("transport failures", () => {
  it("maps a refused connection to APIConnectionError", async () => {
    const closed = await startServer();
    const url = closed.url;
    await closed.close();
    const provider = anthropicProvider(server, { baseURL: url });
    const error = await failure(() => provider.generate("", [], history));
    expect(APIConnectionError.isInstance(error)).toBe(true);
    expect(isRetryable(error)).toBe(true);
  });

  it("maps a request timeout to APITimeoutError", async () => {
    server.enqueue({ fixture: anthropicFixture("stream-text.sse"), delayMs: 3_000 });
    const error = await failure(() => generateAll({ timeout: 50 }));
    expect(APITimeoutError.isInstance(error)).toBe(true);
    expect(isRetryable(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });
});

describe("aborts", () => {
  it("rejects at once for an already aborted signal, without a request", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(() => generateAll({}, controller.signal));
    expect(isAbortError(error)).toBe(true);
    expect(ChatProviderError.isInstance(error)).toBe(false);
    expect(server.requests).toHaveLength(0);
  });

  it("surfaces an abort while waiting for the response as an AbortError, never retryable", async () => {
    server.enqueue({ fixture: anthropicFixture("stream-text.sse"), delayMs: 3_000 });
    const controller = new AbortController();
    const provider = anthropicProvider(server);
    const pending = provider.generate("", [], history, { signal: controller.signal });
    // Abort once the server holds the request: aborted earlier, the request could reach the
    // (same-process) server only after the next test's reset and take that test's response.
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    controller.abort();
    const error = await failure(() => pending);
    expect(isAbortError(error)).toBe(true);
    expect(isRetryable(error)).toBe(false);
  });

  it("passes the abort reason through when it is an AbortError", async () => {
    server.enqueue({ fixture: anthropicFixture("stream-text.sse"), chunkDelayMs: 30 });
    const controller = new AbortController();
    const reason = new DOMException("user pressed ctrl-c", "AbortError");
    const stream = await anthropicProvider(server).generate("", [], history, { signal: controller.signal });
    const error = await failure(async () => {
      for await (const _ of stream) controller.abort(reason);
    });
    expect(error).toBe(reason);
  });
});

describe.each(streamPaths)("aborts mid-stream, %s", (_path, pathOptions) => {
  it("surfaces an abort mid-stream as an AbortError (the SDK alone would end the stream quietly)", async () => {
    server.enqueue({ fixture: anthropicFixture("stream-text.sse"), chunkDelayMs: 30 });
    const controller = new AbortController();
    const stream = await anthropicProvider(server, pathOptions(server)).generate("", [], history, { signal: controller.signal });
    const parts: StreamedMessagePart[] = [];
    const error = await failure(async () => {
      for await (const part of stream) {
        parts.push(part);
        controller.abort();
      }
    });
    expect(isAbortError(error)).toBe(true);
    expect(ChatProviderError.isInstance(error)).toBe(false);
    expect(isRetryable(error)).toBe(false);
    expect(parts).toEqual([{ type: "text", text: "-" }]);
  });


  it("leaves no abort listener on the caller's signal once the stream is done", async () => {
    server.enqueue({ fixture: anthropicFixture("stream-text.sse") }, { fixture: anthropicFixture("stream-text.sse") });
    const controller = new AbortController();
    const provider = anthropicProvider(server, pathOptions(server));
    await collectParts(await provider.generate("", [], history, { signal: controller.signal }));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    // An abandoned stream (the consumer stops early) releases it too.
    for await (const _ of await provider.generate("", [], history, { signal: controller.signal })) break;
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});
