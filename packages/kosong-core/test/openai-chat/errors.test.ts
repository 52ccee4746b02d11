/**
 * Error mapping of OpenAIChatProvider, through the official SDK against the
 * fake server: the recorded error bodies (openai-chat-completions and the
 * OpenAI entries of errors-reference), errors inside a 200 stream, a cut
 * connection, a graceful close before the end, a timeout, a refused
 * connection and aborts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import {
  APIConnectionError,
  APIContextOverflowError,
  APIQuotaExhaustedError,
  APIStatusError,
  APITimeoutError,
  assistantMessage,
  ChatProviderError,
  isRetryable,
  KosongError,
  textPart,
  userMessage,
  type StreamedMessagePart,
} from "@kosong/core";
import { convertOpenAIError, OpenAIChatProvider, type OpenAIChatProviderOptions } from "@kosong/core/openai";
import { type FakeResponse } from "@kosong/core/testing";
import { fixture } from "@kosong/test-support";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const server = useFakeProviderServer();

function provider(options: Partial<OpenAIChatProviderOptions> = {}): OpenAIChatProvider {
  return new OpenAIChatProvider({ model: "gpt-4o", apiKey: "test-key", baseURL: `${server.url}/v1`, ...options });
}

/** Runs one generation to the end; returns the parts seen and the error thrown (or null). */
async function run(
  response: FakeResponse,
  options: Partial<OpenAIChatProviderOptions> = {},
  signal?: AbortSignal,
): Promise<{ parts: StreamedMessagePart[]; error: unknown }> {
  server.enqueue(response);
  const parts: StreamedMessagePart[] = [];
  try {
    const stream = await provider(options).generate("", [], [userMessage("hi")], signal ? { signal } : {});
    for await (const part of stream) parts.push(part);
  } catch (error) {
    return { parts, error };
  }
  return { parts, error: null };
}

/** The error fixtures of provider-streams/openai-chat-completions replayed by this file's tests. */
const coveredErrors = new Set<string>();

function errorFixture(name: string): string {
  coveredErrors.add(name);
  return fixture(`provider-streams/openai-chat-completions/${name}`);
}

interface ErrorEntry {
  api: string;
  status: number;
  name: string;
  body: { error: { message: string; type: string; code: string | null } };
  headers: Record<string, string>;
}

const referenceErrors = (
  JSON.parse(readFileSync(fixture("provider-streams/errors-reference/error-bodies.json"), "utf8")) as ErrorEntry[]
).filter((e) => e.api === "openai");

describe("HTTP error bodies", () => {
  it("error-404-model-not-found.json: APIStatusError 404 with the body's type, code and message, not retryable", async () => {
    const before = server.requests.length;
    const { error } = await run({ fixture: errorFixture("error-404-model-not-found.json") });
    expect(APIStatusError.isInstance(error)).toBe(true);
    expect(APIContextOverflowError.isInstance(error)).toBe(false);
    const e = error as APIStatusError;
    expect(e.statusCode).toBe(404);
    expect(e.errorType).toBe("invalid_request_error");
    expect(e.errorCode).toBe("model_not_found");
    expect(e.message).toBe("404 model_not_found: The model `gpt-5.2-proo` does not exist or you do not have access to it.");
    expect(isRetryable(e)).toBe(false);
    expect(server.requests.length - before).toBe(1);
  });

  it("error-400-unsupported-parameter.json: APIStatusError 400 unsupported_parameter", async () => {
    const { error } = await run({ fixture: errorFixture("error-400-unsupported-parameter.json") });
    const e = error as APIStatusError;
    expect(APIStatusError.isInstance(e)).toBe(true);
    expect(e.statusCode).toBe(400);
    expect(e.errorCode).toBe("unsupported_parameter");
    expect(e.message).toMatch(/^400 unsupported_parameter: Unsupported parameter: 'max_tokens'/);
    expect(isRetryable(e)).toBe(false);
  });

  it("covers every error fixture of provider-streams/openai-chat-completions", () => {
    const files = readdirSync(fixture("provider-streams/openai-chat-completions")).filter((f) => f.startsWith("error-"));
    expect([...coveredErrors].sort()).toEqual(files.sort());
  });

  it("covers the 4 OpenAI entries of errors-reference", () => {
    expect(referenceErrors.map((e) => `${e.status} ${e.name}`)).toEqual([
      "429 rate_limit_exceeded (tokens)",
      "429 insufficient_quota",
      "401 invalid_api_key",
      "500 server_error",
    ]);
  });

  it.each(referenceErrors.map((e) => [`${e.status} ${e.name}`, e] as const))("errors-reference %s", async (_, entry) => {
    const before = server.requests.length;
    const { error } = await run({ status: entry.status, body: entry.body, headers: entry.headers });
    expect(APIStatusError.isInstance(error)).toBe(true);
    const e = error as APIStatusError;
    expect(e.statusCode).toBe(entry.status);
    expect(e.requestId).toBe(entry.headers["x-request-id"]);
    expect(e.errorType).toBe(entry.body.error.type);
    expect(e.errorCode).toBe(entry.body.error.code);
    expect(e.message).toBe(`${entry.status} ${entry.body.error.code ?? entry.body.error.type}: ${entry.body.error.message}`);
    // The SDK client never retries: retrying is the soul's job.
    expect(server.requests.length - before).toBe(1);
    switch (entry.body.error.type) {
      case "tokens": // rate limited: retryable, after `retry-after: 1`
        expect(APIQuotaExhaustedError.isInstance(e)).toBe(false);
        expect(e.retryAfterMs).toBe(1000);
        expect(isRetryable(e)).toBe(true);
        break;
      case "insufficient_quota": // quota: kept apart from rate limiting, never retried
        expect(APIQuotaExhaustedError.isInstance(e)).toBe(true);
        expect(isRetryable(e)).toBe(false);
        break;
      case "invalid_request_error": // 401
        expect(isRetryable(e)).toBe(false);
        break;
      case "server_error":
        expect(isRetryable(e)).toBe(true);
        break;
      default:
        throw new Error(`unexpected entry ${entry.name}`);
    }
  });

  it("context_length_exceeded is an APIContextOverflowError (not retryable as is)", async () => {
    const { error } = await run({
      status: 400,
      body: {
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.",
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded",
        },
      },
    });
    expect(APIContextOverflowError.isInstance(error)).toBe(true);
    expect((error as APIStatusError).statusCode).toBe(400);
    expect(isRetryable(error)).toBe(false);
  });

  it("retry-after-ms wins over retry-after", async () => {
    const { error } = await run({
      status: 503,
      body: { error: { message: "Slow down", type: "service_unavailable_error", param: null, code: "server_is_overloaded" } },
      headers: { "retry-after-ms": "250", "retry-after": "7", "x-request-id": "req_503" },
    });
    const e = error as APIStatusError;
    expect(e.statusCode).toBe(503);
    expect(e.retryAfterMs).toBe(250);
    expect(e.requestId).toBe("req_503");
    expect(isRetryable(e)).toBe(true);
  });

  it("an error status without a JSON body (a gateway's HTML page) is still an APIStatusError", async () => {
    const { error } = await run({ status: 502, body: "<html>Bad gateway</html>", headers: { "content-type": "text/html" } });
    expect(APIStatusError.isInstance(error)).toBe(true);
    expect((error as APIStatusError).statusCode).toBe(502);
    expect((error as APIStatusError).message).toBe("502 error: <html>Bad gateway</html>");
    expect(isRetryable(error)).toBe(true);
  });

  it("an error status with an empty body says so once, with its status", async () => {
    const { error } = await run({ status: 503, body: "" });
    expect(APIStatusError.isInstance(error)).toBe(true);
    expect((error as APIStatusError).message).toBe("503 error (no message from the OpenAI API)");
  });
});

describe("errors inside a 200 stream", () => {
  it("openai-chat-stream-midstream-error.sse: the parts before it, then a 500-like APIStatusError (server_error)", async () => {
    const { parts, error } = await run({
      fixture: fixture("provider-streams/errors-reference/openai-chat-stream-midstream-error.sse"),
      headers: { "x-request-id": "req_mid" },
    });
    expect(parts).toEqual([textPart("The"), textPart(" capital"), textPart(" of")]);
    expect(APIStatusError.isInstance(error)).toBe(true);
    const e = error as APIStatusError;
    expect(e.statusCode).toBe(500);
    expect(e.errorType).toBe("server_error");
    expect(e.requestId).toBe("req_mid");
    expect(e.message).toMatch(/^500 server_error: The server experienced an error/);
    expect(isRetryable(e)).toBe(true);
  });

  it.each([
    ["insufficient_quota", "insufficient_quota", 429, APIQuotaExhaustedError, false],
    ["tokens", "rate_limit_exceeded", 429, APIStatusError, true],
    ["invalid_request_error", "context_length_exceeded", 400, APIContextOverflowError, false],
    ["service_unavailable_error", null, 503, APIStatusError, true],
    ["some_new_error", null, 500, APIStatusError, true],
  ] as const)("type %s / code %s: status %d", async (type, code, status, cls, retryable) => {
    const { parts, error } = await run({
      message: assistantMessage("partial answer"),
      error: { type, code, message: `mid-stream ${type}` },
    });
    expect(parts).toEqual([textPart("partial answer")]);
    expect(cls.isInstance(error)).toBe(true);
    expect((error as APIStatusError).statusCode).toBe(status);
    expect((error as APIStatusError).errorType).toBe(type);
    expect(isRetryable(error)).toBe(retryable);
  });
});

describe("transport failures", () => {
  it("a connection cut mid-stream is an APIConnectionError (retryable), after the parts already received", async () => {
    const { parts, error } = await run({
      fixture: fixture("provider-streams/openai-chat-completions/stream-text-after-tool-result.sse"),
      cutAfter: 4,
    });
    expect(parts).toEqual([textPart("The"), textPart(" capital"), textPart(" of")]);
    expect(APIConnectionError.isInstance(error)).toBe(true);
    expect(isRetryable(error)).toBe(true);
  });

  it("a stream that closes cleanly before its finish_reason is an APIConnectionError, not a complete message", async () => {
    const { parts, error } = await run({
      sse: [
        'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}\n\n',
      ],
    });
    expect(parts).toEqual([textPart("Hel")]);
    expect(APIConnectionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/finish_reason/);
  });

  it("no response before the timeout is an APITimeoutError (retryable)", async () => {
    const { error } = await run({ message: assistantMessage("late"), delayMs: 10_000 }, { timeout: 100 });
    expect(APITimeoutError.isInstance(error)).toBe(true);
    expect(isRetryable(error)).toBe(true);
    server.reset();
  });

  it("a refused connection is an APIConnectionError", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const refused = new OpenAIChatProvider({ model: "gpt-4o", apiKey: "k", baseURL: `http://127.0.0.1:${port}/v1` });
    const error = await refused.generate("", [], [userMessage("hi")]).catch((e: unknown) => e);
    expect(APIConnectionError.isInstance(error)).toBe(true);
    expect(isRetryable(error)).toBe(true);
  });

  it("convertOpenAIError: undici's inactivity timeouts are APITimeoutErrors, other socket errors APIConnectionErrors", () => {
    // undici reports a stalled body as `TypeError: terminated` caused by UND_ERR_BODY_TIMEOUT; it cannot be
    // provoked here without reaching into undici's dispatcher, so the mapping is checked on that shape.
    const stalled = new TypeError("terminated", { cause: Object.assign(new Error("Body Timeout Error"), { code: "UND_ERR_BODY_TIMEOUT" }) });
    expect(APITimeoutError.isInstance(convertOpenAIError(stalled))).toBe(true);
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    expect(APIConnectionError.isInstance(convertOpenAIError(reset))).toBe(true);
    const other = convertOpenAIError(new RangeError("boom"));
    expect(ChatProviderError.isInstance(other) && !APIConnectionError.isInstance(other)).toBe(true);
    expect(isRetryable(other)).toBe(false);
  });

  it("a missing API key is a clear ChatProviderError at construction", () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      expect(() => new OpenAIChatProvider({ model: "gpt-4o" })).toThrow(ChatProviderError);
      expect(() => new OpenAIChatProvider({ model: "gpt-4o" })).toThrow(/OPENAI_API_KEY/);
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });
});

describe("aborts", () => {
  function expectAbort(error: unknown) {
    expect((error as Error).name).toBe("AbortError");
    expect(KosongError.isInstance(error)).toBe(false);
    expect(isRetryable(error)).toBe(false);
  }

  it("an already aborted signal rejects with an AbortError before any request", async () => {
    const before = server.requests.length;
    const controller = new AbortController();
    controller.abort();
    const error = await provider()
      .generate("", [], [userMessage("hi")], { signal: controller.signal })
      .catch((e: unknown) => e);
    expectAbort(error);
    expect(server.requests.length).toBe(before);
  });

  it("an abort while waiting for the response rejects with an AbortError", async () => {
    const controller = new AbortController();
    server.enqueue({ message: assistantMessage("late"), delayMs: 10_000 });
    const pending = provider().generate("", [], [userMessage("hi")], { signal: controller.signal });
    const waitForRequest = async () => {
      while (server.pending > 0) await new Promise((r) => setTimeout(r, 5));
    };
    await waitForRequest();
    controller.abort();
    expectAbort(await pending.catch((e: unknown) => e));
  });

  it("an abort mid-stream ends the iteration with an AbortError (the SDK alone would end it quietly)", async () => {
    const controller = new AbortController();
    const { parts, error } = await (async () => {
      server.enqueue({ message: assistantMessage([textPart("one"), textPart("two"), textPart("three")]), chunkDelayMs: 200 });
      const parts: StreamedMessagePart[] = [];
      try {
        const stream = await provider().generate("", [], [userMessage("hi")], { signal: controller.signal });
        for await (const part of stream) {
          parts.push(part);
          controller.abort();
        }
      } catch (error) {
        return { parts, error };
      }
      return { parts, error: null };
    })();
    expect(parts).toEqual([textPart("one")]);
    expectAbort(error);
  });

  it("the abort reason is thrown when it is an AbortError", async () => {
    const controller = new AbortController();
    const reason = new DOMException("user pressed Esc", "AbortError");
    controller.abort(reason);
    const error = await provider()
      .generate("", [], [userMessage("hi")], { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBe(reason);
  });
});
