/**
 * Runs an LLM call with the soul's retry policy (p-retry): retryable errors
 * (core's `isRetryable`) are retried up to `maxRetriesPerStep` times, each
 * wait announced by a `StepRetry` event and cut short by an abort.
 */
import { isRetryable } from "@kosong/core";
import { setTimeout as delayFor } from "node:timers/promises";
import pRetry from "p-retry";
import type { SoulConfig } from "./config.js";
import { retryDelay } from "./retry-delay.js";
import type { Emit } from "./runtime.js";

/**
 * Calls `attempt` until it succeeds, fails with an error that is not
 * retryable, or the retries are used up (then the last error is thrown).
 * `n` is the step number reported in `StepRetry`. An abort of `signal`
 * rejects with an AbortError, during an attempt (when `attempt` honours the
 * signal) or a wait.
 */
export function callWithRetries<T>(attempt: () => Promise<T>, n: number, config: SoulConfig, emit: Emit, signal?: AbortSignal): Promise<T> {
  return pRetry(attempt, {
    retries: config.maxRetriesPerStep,
    minTimeout: 0,
    // Not p-retry's `signal`: p-retry would then discard an attempt that succeeded just as the
    // signal aborted, and a step that finished must reach the context. An aborted attempt throws
    // an AbortError itself, which is never retryable.
    shouldRetry: ({ error }) => isRetryable(error) && signal?.aborted !== true,
    onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
      if (retriesLeft === 0 || !isRetryable(error) || signal?.aborted) return;
      const delay = retryDelay(error, attemptNumber, config.retry);
      emit({ type: "StepRetry", payload: { n, attempt: attemptNumber, delay_ms: delay, error: error.message, error_type: error.name } });
      await delayFor(delay, undefined, { signal });
    },
  });
}
