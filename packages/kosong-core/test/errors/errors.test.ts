import { describe, expect, expectTypeOf, it, vi } from "vitest";
import * as core from "@kosong/core";
import {
  abortError,
  APIConnectionError,
  APIContextOverflowError,
  APIEmptyResponseError,
  APIQuotaExhaustedError,
  APIStatusError,
  APITimeoutError,
  ChatProviderError,
  createErrorMarker,
  createStatusError,
  isAbortError,
  isRetryable,
  KosongError,
  MessageParseError,
  retryAfterMsFromHeaders,
  ToolCancelledError,
  ToolError,
  ToolNotFoundError,
  ToolParseError,
  ToolRuntimeError,
  ToolValidateError,
} from "@kosong/core";

/** A second, separately loaded copy of @kosong/core (as with two installs of the package). */
async function loadDuplicateCore(): Promise<typeof core> {
  vi.resetModules();
  const copy = await import("@kosong/core");
  expect(copy.KosongError).not.toBe(core.KosongError);
  return copy;
}

describe("error classes across duplicate installs", () => {
  it("recognises each error made by another copy of the package, by kind and by ancestry, where instanceof fails", async () => {
    const other = await loadDuplicateCore();
    const overflow = new other.APIContextOverflowError(400, "prompt is too long");
    expect(overflow instanceof APIStatusError).toBe(false);
    expect(APIContextOverflowError.isInstance(overflow)).toBe(true);
    expect(APIStatusError.isInstance(overflow)).toBe(true);
    expect(ChatProviderError.isInstance(overflow)).toBe(true);
    expect(KosongError.isInstance(overflow)).toBe(true);
    expect(APIQuotaExhaustedError.isInstance(overflow)).toBe(false);

    const cases: Array<[unknown, { isInstance(value: unknown): boolean }]> = [
      [new other.APIConnectionError("reset"), APIConnectionError],
      [new other.APITimeoutError("slow"), APITimeoutError],
      [new other.APIStatusError(503, "down"), APIStatusError],
      [new other.APIQuotaExhaustedError(429, "quota"), APIQuotaExhaustedError],
      [new other.APIEmptyResponseError(), APIEmptyResponseError],
      [new other.MessageParseError("role", "bad"), MessageParseError],
      [new other.ToolNotFoundError("x"), ToolNotFoundError],
      [new other.ToolParseError("x"), ToolParseError],
      [new other.ToolValidateError("x"), ToolValidateError],
      [new other.ToolRuntimeError("x"), ToolRuntimeError],
      [new other.ToolCancelledError(), ToolCancelledError],
    ];
    for (const [error, cls] of cases) expect(cls.isInstance(error)).toBe(true);
    expect(ToolError.isInstance(new other.ToolRuntimeError("x"))).toBe(true);
    expect(ToolRuntimeError.isInstance(new other.ToolParseError("x"))).toBe(false);
  });

  it("classifies errors of another copy as retryable or not, like its own", async () => {
    const other = await loadDuplicateCore();
    expect(isRetryable(new other.APIStatusError(429, "slow down"))).toBe(true);
    expect(isRetryable(new other.APIConnectionError("reset"))).toBe(true);
    expect(isRetryable(new other.APIQuotaExhaustedError(429, "quota"))).toBe(false);
    expect(other.isRetryable(new APITimeoutError("slow"))).toBe(true);
  });

  it("keeps names, messages, causes and status details", () => {
    const cause = new Error("socket hang up");
    const error = new APIStatusError(429, "Too many requests", { requestId: "req-1", retryAfterMs: 1500, errorType: "rate_limit_error", cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("APIStatusError");
    expect(error.message).toBe("Too many requests");
    expect(error.cause).toBe(cause);
    expect([error.statusCode, error.requestId, error.retryAfterMs, error.errorType, error.errorCode]).toEqual([429, "req-1", 1500, "rate_limit_error", null]);
    expect(new APIContextOverflowError(400, "too long").name).toBe("APIContextOverflowError");
    expect(new MessageParseError("content[0].type", "unknown content part type").message).toBe(
      "invalid message at content[0].type: unknown content part type",
    );
  });

  it("recognises nothing else: plain errors with the same name, other branded kinds, primitives", () => {
    const lookalike = Object.assign(new Error("x"), { name: "APIStatusError", statusCode: 429 });
    expect(APIStatusError.isInstance(lookalike)).toBe(false);
    expect(isRetryable(lookalike)).toBe(false);
    expect(APIStatusError.isInstance(new APIConnectionError("x"))).toBe(false);
    expect(ChatProviderError.isInstance(new MessageParseError("", "x"))).toBe(false);
    for (const value of [null, undefined, 0, "APIStatusError", Symbol.for("@kosong/core.error.APIStatusError")]) {
      expect(APIStatusError.isInstance(value)).toBe(false);
    }
  });
});

describe("createErrorMarker", () => {
  it("brands an object invisibly, and markers with the same key recognise each other's brand", () => {
    const first = createErrorMarker("@test/pkg.error.Thing");
    const second = createErrorMarker("@test/pkg.error.Thing");
    const other = createErrorMarker("@test/pkg.error.Other");
    const target = { message: "m" };
    expect(first.is(target)).toBe(false);
    first.mark(target);
    expect(second.is(target)).toBe(true);
    expect(other.is(target)).toBe(false);
    expect(first.symbol).toBe(Symbol.for("@test/pkg.error.Thing"));
    expect(Object.keys(target)).toEqual(["message"]);
    expect(JSON.stringify(target)).toBe('{"message":"m"}');
    expect(() => {
      (target as Record<symbol, unknown>)[first.symbol] = false;
    }).toThrow(TypeError);
    for (const value of [null, undefined, 1, "x", true]) expect(first.is(value)).toBe(false);
  });

  it("lets another package's error class be recognised across its own duplicate copies", () => {
    // The whole pattern: one static line; the constructor and isInstance come from KosongError.
    const makeClasses = () => {
      class LookupError extends KosongError {
        static override readonly brand: string = "@test/pkg.error.LookupError";
      }
      class NotFoundError extends LookupError {
        static override readonly brand: string = "@test/pkg.error.NotFoundError";
      }
      return { LookupError, NotFoundError };
    };
    const [A, B] = [makeClasses(), makeClasses()];
    const error = new B.NotFoundError("missing");
    expect(error instanceof A.NotFoundError).toBe(false);
    expect(A.NotFoundError.isInstance(error)).toBe(true);
    expect(A.LookupError.isInstance(error)).toBe(true);
    expect(A.NotFoundError.isInstance(new B.LookupError("other"))).toBe(false);
    expect(KosongError.isInstance(error)).toBe(true);
    expect(error.name).toBe("NotFoundError");
    const narrowed: unknown = error;
    if (A.NotFoundError.isInstance(narrowed)) expectTypeOf(narrowed).toEqualTypeOf<InstanceType<typeof A.NotFoundError>>();
  });

  it("lets another package's tool error result be recognised across its own duplicate copies, with the same one line", () => {
    const makeClass = () =>
      class QuotaToolError extends ToolError {
        static override readonly brand: string = "@test/pkg.tool-error.QuotaToolError";
      };
    const [A, B] = [makeClass(), makeClass()];
    const result = new B({ message: "over quota" });
    expect(result instanceof A).toBe(false);
    expect(A.isInstance(result)).toBe(true);
    expect(ToolError.isInstance(result)).toBe(true);
    expect(A.isInstance(new ToolError({ message: "plain" }))).toBe(false);
    expect([result, new ToolRuntimeError("boom")].filter(A.isInstance)).toEqual([result]);
    const narrowed: unknown = result;
    if (A.isInstance(narrowed)) expectTypeOf(narrowed).toEqualTypeOf<InstanceType<typeof A>>();
  });
});

describe("isRetryable", () => {
  it("retries connection failures, timeouts and empty responses", () => {
    expect(isRetryable(new APIConnectionError("reset"))).toBe(true);
    expect(isRetryable(new APITimeoutError("slow"))).toBe(true);
    expect(isRetryable(new APIEmptyResponseError())).toBe(true);
  });

  it("retries exactly the statuses 408, 409, 429, 500, 502, 503, 504 and 529", () => {
    const retryable = [408, 409, 429, 500, 502, 503, 504, 529];
    for (const status of [400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 501, 502, 503, 504, 505, 529]) {
      expect(isRetryable(new APIStatusError(status, `status ${status}`)), `status ${status}`).toBe(retryable.includes(status));
    }
  });

  it("never retries quota exhaustion, however it is reported", () => {
    expect(isRetryable(new APIQuotaExhaustedError(429, "You exceeded your current quota"))).toBe(false);
    expect(isRetryable(new APIStatusError(429, "quota", { errorCode: "insufficient_quota" }))).toBe(false);
    expect(isRetryable(new APIStatusError(429, "quota", { errorType: "insufficient_quota" }))).toBe(false);
    expect(isRetryable(createStatusError(400, "Your credit balance is too low", { errorType: "billing_error" }))).toBe(false);
  });

  it("never retries an abort, a context overflow or an unknown error", () => {
    const controller = new AbortController();
    controller.abort();
    expect(isRetryable(controller.signal.reason)).toBe(false);
    expect(isRetryable(new DOMException("aborted", "AbortError"))).toBe(false);
    expect(isRetryable(Object.assign(new APIConnectionError("aborted"), { name: "AbortError" }))).toBe(false);
    expect(isRetryable(new APIContextOverflowError(400, "prompt is too long"))).toBe(false);
    expect(isRetryable(new ChatProviderError("malformed stream"))).toBe(false);
    expect(isRetryable(new Error("ECONNRESET"))).toBe(false);
    expect(isRetryable("429")).toBe(false);
  });
});

describe("createStatusError", () => {
  it("types context overflows, quota exhaustion and everything else", () => {
    expect(APIContextOverflowError.isInstance(createStatusError(400, "This model's maximum context length is 8192 tokens"))).toBe(true);
    expect(APIContextOverflowError.isInstance(createStatusError(400, "bad", { errorCode: "context_length_exceeded" }))).toBe(true);
    expect(APIContextOverflowError.isInstance(createStatusError(413, "prompt is too long: 210000 tokens > 200000 maximum"))).toBe(true);
    // A rate limit that mentions tokens is still a rate limit, and a 5xx is never an overflow.
    const rateLimit = createStatusError(429, "Rate limit reached: too many tokens per minute");
    expect(APIContextOverflowError.isInstance(rateLimit)).toBe(false);
    expect(isRetryable(rateLimit)).toBe(true);
    expect(APIContextOverflowError.isInstance(createStatusError(500, "context window exceeded"))).toBe(false);
    expect(APIQuotaExhaustedError.isInstance(createStatusError(429, "quota", { errorCode: "insufficient_quota" }))).toBe(true);
    const plain = createStatusError(404, "model not found", { requestId: "r1" });
    expect([APIStatusError.isInstance(plain), APIContextOverflowError.isInstance(plain), plain.requestId]).toEqual([true, false, "r1"]);
  });
});

describe("retryAfterMsFromHeaders", () => {
  it("prefers retry-after-ms, then reads retry-after as seconds or an HTTP date", () => {
    expect(retryAfterMsFromHeaders(new Headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
    expect(retryAfterMsFromHeaders({ "Retry-After": "1.5" })).toBe(1500);
    expect(retryAfterMsFromHeaders({ "retry-after": ["2", "3"] })).toBe(2000);
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMsFromHeaders({ "retry-after": "Wed, 01 Jan 2025 00:00:30 GMT" }, now)).toBe(30_000);
    expect(retryAfterMsFromHeaders({ "retry-after": "Tue, 31 Dec 2024 23:59:00 GMT" }, now)).toBe(0);
  });

  it("is null when absent, blank, negative or unparsable", () => {
    expect(retryAfterMsFromHeaders(undefined)).toBeNull();
    expect(retryAfterMsFromHeaders({})).toBeNull();
    expect(retryAfterMsFromHeaders({ "retry-after": " " })).toBeNull();
    expect(retryAfterMsFromHeaders({ "retry-after": "-1" })).toBeNull();
    expect(retryAfterMsFromHeaders({ "retry-after": "soon" })).toBeNull();
    expect(retryAfterMsFromHeaders({ "retry-after-ms": "x", "retry-after": "1" })).toBe(1000);
  });
});

describe("abort errors", () => {
  it("rethrows the signal's own AbortError reason, and makes one for other reasons", () => {
    const controller = new AbortController();
    controller.abort();
    expect(abortError(controller.signal)).toBe(controller.signal.reason);
    const custom = new AbortController();
    custom.abort(new Error("user pressed Esc"));
    const error = abortError(custom.signal);
    expect(isAbortError(error)).toBe(true);
    expect(error).not.toBe(custom.signal.reason);
    expect(isAbortError(new Error("x"))).toBe(false);
    expect(isAbortError(null)).toBe(false);
  });
});
