/**
 * Building typed status errors from what an HTTP API returned. Shared by every
 * provider (and available to custom ones) so that context overflow, quota
 * exhaustion and retry hints are classified the same way everywhere.
 */
import {
  APIContextOverflowError,
  APIQuotaExhaustedError,
  APIStatusError,
  type APIStatusErrorOptions,
} from "./errors.js";
import { isContextOverflowMessage } from "./context-overflow.js";

/** Headers as a fetch `Headers`, a plain record, or absent. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined> | null | undefined;

/** One header's value (case-insensitive), or null. */
export function getHeader(headers: HeaderSource, name: string): string | null {
  if (!headers) return null;
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name);
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== lower || value === undefined) continue;
    return Array.isArray(value) ? (value[0] ?? null) : value;
  }
  return null;
}

/**
 * The delay the server asked for, in milliseconds: `retry-after-ms` first,
 * then `retry-after` (seconds, possibly fractional, or an HTTP date).
 * Null when absent, unparsable or negative.
 */
export function retryAfterMsFromHeaders(headers: HeaderSource, now: number = Date.now()): number | null {
  const ms = getHeader(headers, "retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = getHeader(headers, "retry-after");
  if (after === null || after.trim() === "") return null;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : null;
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * True when an error says the account's quota or credit is used up:
 * `insufficient_quota` (OpenAI), `billing_error` (Anthropic), or the status
 * 402 Payment Required (OpenRouter's "insufficient credits").
 */
export function isQuotaExhausted(type: string | null | undefined, code: string | null | undefined, statusCode?: number): boolean {
  return type === "insufficient_quota" || code === "insufficient_quota" || type === "billing_error" || statusCode === 402;
}

/**
 * The typed error for an HTTP error status: {@link APIContextOverflowError}
 * for a context overflow (4xx, see `contextOverflowPatterns`),
 * {@link APIQuotaExhaustedError} for quota exhaustion (402 included),
 * otherwise {@link APIStatusError}.
 */
export function createStatusError(statusCode: number, message: string, options: APIStatusErrorOptions = {}): APIStatusError {
  if (isQuotaExhausted(options.errorType, options.errorCode, statusCode)) return new APIQuotaExhaustedError(statusCode, message, options);
  if (statusCode >= 400 && statusCode < 500 && statusCode !== 429 && isContextOverflowMessage(options.errorCode, message, options.errorType)) {
    return new APIContextOverflowError(statusCode, message, options);
  }
  return new APIStatusError(statusCode, message, options);
}
