/**
 * How long to wait before retrying a failed LLM call.
 */
import { APIStatusError } from "@kosong/core";
import type { RetryTiming } from "./config.js";

/**
 * The delay before retry number `retry` (1 for the first retry), in ms:
 * exponential backoff from `initialDelayMs`, doubling, plus up to `jitterMs`
 * of jitter, capped at `maxDelayMs` (kimi-cli's `wait_exponential_jitter`).
 * A server's `retryAfterMs` wins when it is longer, up to `maxRetryAfterMs`.
 * `random` returns a number in [0, 1).
 */
export function retryDelay(error: unknown, retry: number, timing: RetryTiming, random: () => number = Math.random): number {
  const backoff = Math.min(timing.maxDelayMs, timing.initialDelayMs * 2 ** (retry - 1) + random() * timing.jitterMs);
  const asked = APIStatusError.isInstance(error) ? error.retryAfterMs : null;
  return asked === null ? backoff : Math.max(backoff, Math.min(asked, timing.maxRetryAfterMs));
}
