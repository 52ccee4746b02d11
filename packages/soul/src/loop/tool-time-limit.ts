/**
 * A time limit on one tool call. The clock runs while the tool works and
 * stops while it waits for the user's approval (a person reading a prompt
 * is not a tool hanging). When the limit passes, the tool's signal aborts
 * and the call's result is a {@link ToolTimeoutError} at once, whether or
 * not the tool has stopped yet.
 */
import type { ToolCall, ToolResult } from "@kosong/core";
import type { ToolApproval } from "../approval/approval.js";
import { ToolTimeoutError } from "./tool-timeout-error.js";

/** What a limited call runs with: its signal, and a wrapper that stops the clock while an approval is asked. */
export interface LimitedRun {
  signal: AbortSignal;
  pausing(approval: ToolApproval): ToolApproval;
}

/**
 * Runs `run` for `call` with at most `limitMs` of working time. `signal`
 * (the step's) still cancels it as before.
 */
export function runWithTimeLimit(call: ToolCall, limitMs: number, signal: AbortSignal | undefined, run: (limited: LimitedRun) => Promise<ToolResult>): Promise<ToolResult> {
  const controller = new AbortController();
  const forward = (): void => controller.abort(signal?.reason);
  if (signal?.aborted) forward();
  else signal?.addEventListener("abort", forward, { once: true });
  return new Promise<ToolResult>((resolve, reject) => {
    let remaining = limitMs;
    let startedAt = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let waiting = 0;
    let settled = false;
    const done = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", forward);
      return true;
    };
    const expire = (): void => {
      const error = new ToolTimeoutError(call.function.name, limitMs);
      if (!done()) return;
      controller.abort(error);
      resolve({ tool_call_id: call.id, return_value: error });
    };
    const arm = (): void => {
      startedAt = performance.now();
      timer = setTimeout(expire, Math.max(0, remaining));
    };
    const pause = (): void => {
      if (waiting++ > 0 || settled) return;
      clearTimeout(timer);
      remaining -= performance.now() - startedAt;
    };
    const resume = (): void => {
      if (--waiting === 0 && !settled) arm();
    };
    const pausing = (approval: ToolApproval): ToolApproval => ({
      request: async (action, description, scope, options) => {
        pause();
        try {
          return await approval.request(action, description, scope, options);
        } finally {
          resume();
        }
      },
    });
    arm();
    let running: Promise<ToolResult>;
    try {
      running = run({ signal: controller.signal, pausing });
    } catch (error) {
      running = Promise.reject(error);
    }
    running.then(
      (result) => done() && resolve(result),
      (error: unknown) => done() && reject(error),
    );
  });
}
