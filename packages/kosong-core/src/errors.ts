/**
 * Error classes of @kosong/core, and the one mechanism every kosong package
 * uses for its errors.
 *
 * Every class names a `brand`, a globally unique key. The {@link KosongError}
 * constructor marks an instance with the brand of each class of its chain
 * (under `Symbol.for(brand)`), and the static `isInstance(value)`, inherited
 * by every subclass, checks the brand of the class it is called on rather
 * than the prototype chain: an error thrown by one installed copy of a
 * package is recognised by another copy (duplicate installs, bundled and
 * unbundled code). A subclass needs one line:
 * `static override readonly brand = "@my/package.error.MyError";`.
 */
import { bindIsInstance, isBranded, markBrands } from "./branded-class.js";
import type { TokenUsage } from "./token-usage.js";

/** Options shared by every kosong error. */
export interface KosongErrorOptions {
  cause?: unknown;
}

/** The root of every error the kosong packages throw on purpose. */
export class KosongError extends Error {
  /** This class's brand (a subclass sets its own: `static override readonly brand = "@scope/pkg.error.Name"`). */
  static readonly brand: string = "@kosong/core.error";

  constructor(message: string, options: KosongErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    markBrands(this, new.target);
  }

  /**
   * True when `value` is an instance of the class this is read from, from
   * any copy of its package (`APIStatusError.isInstance(error)` narrows to
   * `APIStatusError`). Also works unbound: `errors.filter(APIStatusError.isInstance)`.
   */
  static isInstance<T>(this: abstract new (...args: never[]) => T, value: unknown): value is T {
    return isBranded(this, value);
  }
}

// Read from a class, `isInstance` is that class's check already bound, so passing it around keeps the class.
bindIsInstance(KosongError);

/** An error raised by a chat provider: transport, HTTP status, or a malformed/empty response. */
export class ChatProviderError extends KosongError {
  static override readonly brand: string = "@kosong/core.error.ChatProviderError";
  /**
   * The tokens the failed call used, as the provider reported them before it
   * failed (a stream that reported its usage, then broke off or came back
   * empty); null when it reported none. `generate()` sets it.
   */
  usage: TokenUsage | null = null;
}

/** The connection failed or was cut (before or during the response stream). Retryable. */
export class APIConnectionError extends ChatProviderError {
  static override readonly brand: string = "@kosong/core.error.APIConnectionError";
}

/** The request timed out. Retryable. */
export class APITimeoutError extends ChatProviderError {
  static override readonly brand: string = "@kosong/core.error.APITimeoutError";
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

/**
 * The API answered with an error status (4xx/5xx), or reported an error of
 * such a kind inside a 200 stream (then `statusCode` is the status that error
 * kind carries over HTTP, e.g. 529 for Anthropic `overloaded_error`).
 */
export class APIStatusError extends ChatProviderError {
  static override readonly brand: string = "@kosong/core.error.APIStatusError";

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
  }
}

/**
 * The request was rejected because the conversation does not fit the model's
 * context window (OpenAI `context_length_exceeded`, Anthropic "prompt is too
 * long"). Not retryable as is: compact the context, then try again.
 */
export class APIContextOverflowError extends APIStatusError {
  static override readonly brand: string = "@kosong/core.error.APIContextOverflowError";

  constructor(statusCode: number, message: string, options: APIStatusErrorOptions = {}) {
    super(statusCode, message, options);
  }
}

/**
 * The account's quota or credit is used up (OpenAI `insufficient_quota`,
 * Anthropic `billing_error`). Unlike rate limiting, waiting does not help:
 * never retryable.
 */
export class APIQuotaExhaustedError extends APIStatusError {
  static override readonly brand: string = "@kosong/core.error.APIQuotaExhaustedError";

  constructor(statusCode: number, message: string, options: APIStatusErrorOptions = {}) {
    super(statusCode, message, options);
  }
}

/** The API returned no content and no tool call (or only thinking). Retryable. */
export class APIEmptyResponseError extends ChatProviderError {
  static override readonly brand: string = "@kosong/core.error.APIEmptyResponseError";

  constructor(message = "The API returned an empty response.", options: KosongErrorOptions = {}) {
    super(message, options);
  }
}

/** A message (JSON text or value) that is not a valid kosong message; `path` names the bad field. */
export class MessageParseError extends KosongError {
  static override readonly brand: string = "@kosong/core.error.MessageParseError";

  readonly path: string;

  constructor(path: string, problem: string, options: KosongErrorOptions = {}) {
    super(path ? `invalid message at ${path}: ${problem}` : `invalid message: ${problem}`, options);
    this.path = path;
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
