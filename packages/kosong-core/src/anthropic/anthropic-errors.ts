/**
 * Mapping of what the Anthropic SDK throws to kosong's typed errors.
 *
 * Errors are recognised by shape and name rather than by `instanceof`, so a
 * client from another installed copy or version of `@anthropic-ai/sdk`
 * (caller-supplied clients) is mapped the same way.
 */
import {
  APIConnectionError,
  APITimeoutError,
  ChatProviderError,
  KosongError,
  abortError,
  isAbortError,
} from "../errors.js";
import { type HeaderSource, createStatusError, getHeader, retryAfterMsFromHeaders } from "../status-error.js";
import { connectionErrorMessage, transportError } from "../transport-error.js";

/** The HTTP status each Anthropic error type is served with (used for errors inside a 200 stream). */
export const anthropicErrorStatuses: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

interface SdkErrorShape {
  name?: unknown;
  message?: unknown;
  status?: unknown;
  headers?: unknown;
  error?: unknown;
  type?: unknown;
  requestID?: unknown;
  errorCode?: unknown;
}

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null;
}

function str(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

/** The `{type, message}` of an Anthropic error body `{type: "error", error: {...}, request_id}`. */
function errorDetails(body: unknown): { type: string | null; message: string | null; requestId: string | null } {
  if (!isObject(body)) return { type: null, message: null, requestId: null };
  const inner = isObject(body.error) ? body.error : null;
  return { type: str(inner?.type), message: str(inner?.message), requestId: str(body.request_id) };
}

function statusError(status: number, err: SdkErrorShape): ChatProviderError {
  const headers = (err.headers ?? null) as HeaderSource;
  const body = errorDetails(err.error);
  const errorType = str(err.type) ?? body.type;
  const message = body.message ? `${status} ${errorType ?? "error"}: ${body.message}` : String(err.message ?? status);
  return createStatusError(status, message, {
    cause: err,
    requestId: str(err.requestID) ?? getHeader(headers, "request-id") ?? body.requestId,
    retryAfterMs: retryAfterMsFromHeaders(headers),
    errorType,
    errorCode: str(err.errorCode),
  });
}

/**
 * The error an `event: error` inside a 200 stream stands for, from its body
 * (`{"type": "error", "error": {"type", "message"}}`): the status error its
 * type is served with over HTTP (`overloaded_error` -> 529, ...), or a
 * {@link ChatProviderError} for an unknown type. `headers` are those of the
 * 200 response (for the request id).
 */
export function anthropicStreamError(body: unknown, headers: HeaderSource, cause?: unknown): ChatProviderError {
  const details = errorDetails(body);
  const errorType = details.type;
  const status = errorType ? anthropicErrorStatuses[errorType] : undefined;
  const detail = details.message ?? (typeof body === "string" ? body : JSON.stringify(body));
  if (status === undefined) {
    return new ChatProviderError(`Anthropic stream error${errorType ? ` ${errorType}` : ""}: ${detail}`, { cause });
  }
  return createStatusError(status, `${errorType}: ${detail} (error event in the response stream)`, {
    cause,
    requestId: getHeader(headers, "request-id") ?? details.requestId,
    errorType,
  });
}

function streamError(err: SdkErrorShape): ChatProviderError {
  return anthropicStreamError(err.error, (err.headers ?? null) as HeaderSource, err);
}

/**
 * The kosong error for `error`, thrown by the Anthropic SDK or by the
 * transport while a request or its stream was running:
 *
 * - an abort (of `signal`, or the SDK's `APIUserAbortError`) -> the AbortError, unwrapped;
 * - `APIConnectionTimeoutError` -> {@link APITimeoutError};
 * - `APIConnectionError`, or a transport failure mid-stream (socket cut) -> {@link APIConnectionError},
 *   the transport's own timeouts (undici `bodyTimeout` on a stalled stream) -> {@link APITimeoutError};
 * - an HTTP error status -> `APIStatusError` (or its context-overflow / quota
 *   subclasses) with `statusCode`, `requestId` (`request-id`), `retryAfterMs`,
 *   `errorType`;
 * - an error event inside a 200 stream -> the status error its type is served
 *   with (`overloaded_error` -> 529, `rate_limit_error` -> 429, ...);
 * - anything else -> {@link ChatProviderError}.
 */
export function convertAnthropicError(error: unknown, signal?: AbortSignal | null): Error {
  if (signal?.aborted) return abortError(signal);
  if (KosongError.isInstance(error)) return error;
  if (isAbortError(error)) return error as Error;
  if (!isObject(error)) return new ChatProviderError(`Anthropic error: ${String(error)}`, { cause: error });
  const err = error as SdkErrorShape;
  const name = err.name;
  const message = String(err.message ?? "");
  if (name === "APIUserAbortError") return abortError(signal ?? undefined);
  if (name === "APIConnectionTimeoutError") return new APITimeoutError(message || "Request timed out.", { cause: error });
  if (name === "APIConnectionError") {
    return new APIConnectionError(error instanceof Error ? connectionErrorMessage(error) : message || "Connection error", { cause: error });
  }
  if (typeof err.status === "number") return statusError(err.status, err);
  if (name === "APIError" || (err.status === undefined && isObject(err.error))) return streamError(err);
  if (error instanceof SyntaxError) {
    return new ChatProviderError(`Anthropic stream carried invalid JSON: ${message}`, { cause: error });
  }
  const transport = transportError(error);
  if (transport) return transport;
  return new ChatProviderError(`Anthropic error: ${message}`, { cause: error });
}
