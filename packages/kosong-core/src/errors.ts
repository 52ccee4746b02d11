/**
 * Error classes of @kosong/core.
 *
 * Every class carries a marker under a global symbol (`Symbol.for`), and its
 * static `isInstance(value)` checks that marker rather than the prototype
 * chain: an error thrown by one installed copy of @kosong/core is recognised
 * by another copy (duplicate installs, bundled and unbundled code). Other
 * packages brand their own error classes the same way with
 * {@link createErrorMarker}.
 */
import { createErrorMarker, type ErrorMarker } from "./error-marker.js";

const kosongMarker = createErrorMarker("@kosong/core.error");

function markerFor(name: string): ErrorMarker {
  return createErrorMarker(`@kosong/core.error.${name}`);
}

/** Options shared by every kosong error. */
export interface KosongErrorOptions {
  cause?: unknown;
}

/** The root of every error @kosong/core throws on purpose. */
export class KosongError extends Error {
  constructor(message: string, options: KosongErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    kosongMarker.mark(this);
  }

  /** True when `value` is a KosongError from any copy of this package. */
  static isInstance(value: unknown): value is KosongError {
    return kosongMarker.is(value);
  }
}

const chatProviderMarker = markerFor("ChatProviderError");

/** An error raised by a chat provider: transport, HTTP status, or a malformed/empty response. */
export class ChatProviderError extends KosongError {
  constructor(message: string, options: KosongErrorOptions = {}) {
    super(message, options);
    chatProviderMarker.mark(this);
  }

  static override isInstance(value: unknown): value is ChatProviderError {
    return chatProviderMarker.is(value);
  }
}

const connectionMarker = markerFor("APIConnectionError");

/** The connection failed or was cut (before or during the response stream). Retryable. */
export class APIConnectionError extends ChatProviderError {
  constructor(message: string, options: KosongErrorOptions = {}) {
    super(message, options);
    connectionMarker.mark(this);
  }

  static override isInstance(value: unknown): value is APIConnectionError {
    return connectionMarker.is(value);
  }
}

const timeoutMarker = markerFor("APITimeoutError");

/** The request timed out. Retryable. */
export class APITimeoutError extends ChatProviderError {
  constructor(message: string, options: KosongErrorOptions = {}) {
    super(message, options);
    timeoutMarker.mark(this);
  }

  static override isInstance(value: unknown): value is APITimeoutError {
    return timeoutMarker.is(value);
  }
}

/** Details of an HTTP status error. */
export interface APIStatusErrorOptions extends KosongErrorOptions {
  /** The provider's request id (`x-request-id` / `request-id`), when known. */
  requestId?: string | null;
  /** How long the server asked us to wait (`retry-after-ms`, then `retry-after`), in ms. */
  retryAfterMs?: number | null;
  /** The provider's error type, e.g. `rate_limit_error`, `overloaded_error`, `insufficient_quota`. */
  errorType?: string | null;
  /** The provider's error code, e.g. `context_length_exceeded`, `insufficient_quota`. */
  errorCode?: string | null;
}

const statusMarker = markerFor("APIStatusError");

/**
 * The API answered with an error status (4xx/5xx), or reported an error of
 * such a kind inside a 200 stream (then `statusCode` is the status that error
 * kind carries over HTTP, e.g. 529 for Anthropic `overloaded_error`).
 */
export class APIStatusError extends ChatProviderError {
  readonly statusCode: number;
  readonly requestId: string | null;
  readonly retryAfterMs: number | null;
  readonly errorType: string | null;
  readonly errorCode: string | null;

  constructor(statusCode: number, message: string, options: APIStatusErrorOptions = {}) {
    super(message, options);
    this.statusCode = statusCode;
    this.requestId = options.requestId ?? null;
    this.retryAfterMs = options.retryAfterMs ?? null;
    this.errorType = options.errorType ?? null;
    this.errorCode = options.errorCode ?? null;
    statusMarker.mark(this);
  }

  static override isInstance(value: unknown): value is APIStatusError {
    return statusMarker.is(value);
  }
}

const overflowMarker = markerFor("APIContextOverflowError");

/**
 * The request was rejected because the conversation does not fit the model's
 * context window (OpenAI `context_length_exceeded`, Anthropic "prompt is too
 * long"). Not retryable as is: compact the context, then try again.
 */
export class APIContextOverflowError extends APIStatusError {
  constructor(statusCode: number, message: string, options: APIStatusErrorOptions = {}) {
    super(statusCode, message, options);
    overflowMarker.mark(this);
  }

  static override isInstance(value: unknown): value is APIContextOverflowError {
    return overflowMarker.is(value);
  }
}

const quotaMarker = markerFor("APIQuotaExhaustedError");

/**
 * The account's quota or credit is used up (OpenAI `insufficient_quota`,
 * Anthropic `billing_error`). Unlike rate limiting, waiting does not help:
 * never retryable.
 */
export class APIQuotaExhaustedError extends APIStatusError {
  constructor(statusCode: number, message: string, options: APIStatusErrorOptions = {}) {
    super(statusCode, message, options);
    quotaMarker.mark(this);
  }

  static override isInstance(value: unknown): value is APIQuotaExhaustedError {
    return quotaMarker.is(value);
  }
}

const emptyMarker = markerFor("APIEmptyResponseError");

/** The API returned no content and no tool call (or only thinking). Retryable. */
export class APIEmptyResponseError extends ChatProviderError {
  constructor(message = "The API returned an empty response.", options: KosongErrorOptions = {}) {
    super(message, options);
    emptyMarker.mark(this);
  }

  static override isInstance(value: unknown): value is APIEmptyResponseError {
    return emptyMarker.is(value);
  }
}

const parseMarker = markerFor("MessageParseError");

/** A message (JSON text or value) that is not a valid kosong message; `path` names the bad field. */
export class MessageParseError extends KosongError {
  readonly path: string;

  constructor(path: string, problem: string, options: KosongErrorOptions = {}) {
    super(path ? `invalid message at ${path}: ${problem}` : `invalid message: ${problem}`, options);
    this.path = path;
    parseMarker.mark(this);
  }

  static override isInstance(value: unknown): value is MessageParseError {
    return parseMarker.is(value);
  }
}

/** True for an abort: a DOMException/Error named `AbortError` (what `signal.throwIfAborted()` and fetch throw). */
export function isAbortError(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "AbortError";
}

/** The abort error to throw for `signal`: its reason when that is an AbortError, else a new one. */
export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === "AbortError") return reason;
  return new DOMException("This operation was aborted", "AbortError");
}

const retryableStatuses = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

/**
 * Whether retrying the same request may succeed: connection failures,
 * timeouts, empty responses and the statuses 408, 409, 429, 500, 502, 503,
 * 504 and 529 (Anthropic overloaded). Never an abort, never quota exhaustion,
 * never a context overflow, never any other error.
 */
export function isRetryable(error: unknown): boolean {
  if (isAbortError(error)) return false;
  if (APIQuotaExhaustedError.isInstance(error) || APIContextOverflowError.isInstance(error)) return false;
  if (APIStatusError.isInstance(error)) {
    if (error.errorCode === "insufficient_quota" || error.errorType === "insufficient_quota") return false;
    return retryableStatuses.has(error.statusCode);
  }
  return (
    APIConnectionError.isInstance(error) ||
    APITimeoutError.isInstance(error) ||
    APIEmptyResponseError.isInstance(error)
  );
}
