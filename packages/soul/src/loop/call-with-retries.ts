/**
 * Runs an LLM call with the soul's retry policy: retryable errors (core's
 * `isRetryable`) are retried up to `maxRetriesPerStep` times, each wait
 * announced by a `StepRetry` event and cut short by an abort. A call that
 * succeeds costs one await: the policy is consulted only after a failure.
 */
import { isRetryable } from "@kosong/core";
import { setTimeout as delayFor } from "node:timers/promises";
import type { SoulConfig } from "./config.js";
import { retryDelay } from "./retry-delay.js";
import type { Emit } from "./runtime.js";

/**
 * Calls `attempt` until it succeeds, fails with an error that is not
 * retryable, or the retries are used up (then the last error is thrown).
 * `n` is the step number reported in `StepRetry`. An abort of `signal`
 * rejects with an AbortError, during an attempt (when `attempt` honours the
 * signal) or a wait. An attempt that succeeded just as `signal` aborted is
 * returned: a step that finished must reach the context.
 */
export async function callWithRetries<T>(attempt: () => Promise<T>, n: number, config: SoulConfig, emit: Emit, signal?: AbortSignal): Promise<T> {
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt();
    } catch (error) {
      // An aborted attempt throws an AbortError itself, which is never retryable.
      if (attemptNumber > config.maxRetriesPerStep || !isRetryable(error) || signal?.aborted) throw error;
      const delay = retryDelay(error, attemptNumber, config.retry);
      const { message, name } = error instanceof Error ? error : { message: String(error), name: "Error" };
      emit({ type: "StepRetry", payload: { n, attempt: attemptNumber, delay_ms: delay, error: message, error_type: name } });
      await delayFor(delay, undefined, { signal });
    }
  }
}
