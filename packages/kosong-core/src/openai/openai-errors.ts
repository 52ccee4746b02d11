/**
 * Mapping of what the official `openai` SDK throws to the typed errors of
 * @kosong/core. Shared by the Chat Completions and Responses providers.
 */
import {
  APIConnectionError as SDKConnectionError,
  APIConnectionTimeoutError as SDKTimeoutError,
  APIError as SDKAPIError,
  APIUserAbortError as SDKUserAbortError,
} from "openai";

import {
  abortError,
  APIConnectionError,
  APITimeoutError,
  ChatProviderError,
  isAbortError,
  KosongError,
  type APIStatusError,
} from "../errors.js";
import { createStatusError, getHeader, retryAfterMsFromHeaders, type HeaderSource } from "../status-error.js";
import { connectionErrorMessage, transportError } from "../transport-error.js";

/** The `error` object of an OpenAI error body or stream event: `{message, type, code, param}`. */
export interface OpenAIErrorObject {
  message?: unknown;
  type?: unknown;
  code?: unknown;
  param?: unknown;
}

function str(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

const statusByKind: Record<string, number> = {
  invalid_request_error: 400,
  context_length_exceeded: 400,
  string_above_max_length: 400,
  authentication_error: 401,
  invalid_api_key: 401,
  billing_error: 402,
  permission_error: 403,
  permission_denied: 403,
  not_found_error: 404,
  model_not_found: 404,
  request_too_large: 413,
  rate_limit_exceeded: 429,
  rate_limit_error: 429,
  insufficient_quota: 429,
  tokens: 429,
  requests: 429,
  slow_down: 429,
  server_error: 500,
  api_error: 500,
  internal_error: 500,
  internal_server_error: 500,
  service_unavailable_error: 503,
  server_is_overloaded: 503,
  timeout_error: 504,
  timeout: 504,
  overloaded_error: 529,
  // vLLM names its error types after the exception (and sends the status as `code`).
  BadRequestError: 400,
  NotFoundError: 404,
  InternalServerError: 500,
};

/**
 * The HTTP status that an error kind carries when the API reports it as an
 * HTTP error, for errors that arrive inside a 200 stream (which have no
 * status of their own). The code wins over the type (`rate_limit_exceeded`
 * has type `tokens`); an unknown kind counts as a server error (500): the
 * request was accepted and then failed.
 */
export function statusForErrorKind(type: string | null | undefined, code: string | null | undefined): number {
  return (code ? statusByKind[code] : undefined) ?? (type ? statusByKind[type] : undefined) ?? 500;
}

/**
 * An error `code` that is a number is the HTTP status the error stands for
 * (OpenRouter, vLLM and llama.cpp send `{"code": 400, ...}`, also inside a 200
 * stream); null otherwise.
 */
function httpStatusCode(code: unknown): number | null {
  const value = typeof code === "string" && /^\d{3}$/.test(code) ? Number(code) : code;
  return typeof value === "number" && Number.isInteger(value) && value >= 400 && value <= 599 ? value : null;
}

/** Details for {@link errorFromOpenAIErrorObject}. */
export interface OpenAIErrorContext {
  /** The HTTP status, when the error came as an HTTP error (otherwise derived from the kind). */
  status?: number | null;
  /** Response headers (for the request id and retry hints). */
  headers?: HeaderSource;
  cause?: unknown;
}

/**
 * The typed error for an OpenAI error object (`{message, type, code}`), from
 * an error body or from an error inside a 200 stream (Chat `data: {"error":
 * ...}`, Responses `error` / `response.failed`). Without an HTTP status, a
 * numeric `code` (OpenRouter, vLLM, llama.cpp) is the status, else the kind
 * says it (see {@link statusForErrorKind}). Its message names the
 * status and the kind (the code, else the type) before the API's text, as
 * the Anthropic provider's do: `429 rate_limit_exceeded: slow down`. Context
 * overflow and quota exhaustion become {@link APIContextOverflowError} and
 * {@link APIQuotaExhaustedError}.
 */
export function errorFromOpenAIErrorObject(error: OpenAIErrorObject | null | undefined, context: OpenAIErrorContext = {}): APIStatusError {
  const errorType = str(error?.type);
  const errorCode = str(error?.code);
  const status = context.status ?? httpStatusCode(error?.code) ?? statusForErrorKind(errorType, errorCode);
  const text = str(error?.message);
  const kind = errorCode ?? errorType ?? "error";
  const message = text ? `${status} ${kind}: ${text}` : `${status} ${kind} (no message from the OpenAI API)`;
  return createStatusError(status, message, {
    requestId: getHeader(context.headers, "x-request-id"),
    retryAfterMs: retryAfterMsFromHeaders(context.headers),
    errorType,
    errorCode,
    cause: context.cause,
  });
}

/**
 * The text of an SDK error without a JSON error object (a plain-text or HTML
 * body): the SDK's message without the status it puts in front, or null when
 * the response had no body.
 */
function sdkText(error: InstanceType<typeof SDKAPIError>): string | null {
  if (error.status === undefined) return error.message;
  const prefix = `${error.status} `;
  const text = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  return text === "status code (no body)" ? null : text;
}

/**
 * Converts anything the `openai` SDK (or the transport under it) threw into
 * a kosong error:
 *
 * - an abort (the SDK's `APIUserAbortError`, an `AbortError`, or any error
 *   while `signal` is aborted) becomes the AbortError of `signal`, never a
 *   provider error;
 * - `APIConnectionTimeoutError` becomes {@link APITimeoutError};
 * - `APIConnectionError` and transport failures (a socket cut mid-stream)
 *   become {@link APIConnectionError}, the transport's own timeouts (undici
 *   `bodyTimeout` on a stalled stream) {@link APITimeoutError};
 * - an `APIError` with a status becomes a status error with `statusCode`,
 *   `requestId` (`x-request-id`), `retryAfterMs` (`retry-after-ms`, then
 *   `retry-after`), `errorType` and `errorCode`;
 * - an `APIError` without a status (an error event inside a 200 stream)
 *   becomes the status error its type/code stands for
 *   (see {@link statusForErrorKind});
 * - kosong errors pass through; anything else becomes a
 *   {@link ChatProviderError} with the original as `cause`.
 */
export function convertOpenAIError(error: unknown, signal?: AbortSignal): Error {
  if (signal?.aborted || error instanceof SDKUserAbortError || isAbortError(error)) return abortError(signal);
  if (KosongError.isInstance(error)) return error;
  if (error instanceof SDKTimeoutError) return new APITimeoutError(error.message, { cause: error });
  if (error instanceof SDKConnectionError) return new APIConnectionError(connectionErrorMessage(error), { cause: error });
  if (error instanceof SDKAPIError) {
    const body = typeof error.error === "object" && error.error !== null ? (error.error as OpenAIErrorObject) : { message: sdkText(error) };
    return errorFromOpenAIErrorObject(body, {
      status: error.status ?? null,
      headers: error.headers,
      cause: error,
    });
  }
  const transport = transportError(error);
  if (transport) return transport;
  const message = error instanceof Error ? error.message : String(error);
  return new ChatProviderError(`OpenAI request failed: ${message}`, { cause: error });
}
