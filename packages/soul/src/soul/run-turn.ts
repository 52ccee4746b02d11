/**
 * The agent loop: one turn is a preparation (the user's message, or a
 * rewrite of the history), then steps until the model stops calling tools, a
 * tool is rejected without feedback, or `maxStepsPerTurn`. It always ends
 * with `TurnEnd`, also after an error or an abort.
 */
import { abortError, tokenUsage } from "@kosong/core";
import type { StopReason, UserInput } from "./events.js";
import { runStep, type StepOutcome } from "./run-step.js";
import type { Emit, SoulRuntime } from "./runtime.js";
import type { TurnResult } from "./turn.js";

/** How a turn starts. */
export interface TurnStart {
  /** What `TurnBegin` reports. */
  input: UserInput;
  /** Puts the turn's input into the context (may be aborted; an error ends the turn). */
  prepare(): Promise<void>;
}

/** Runs a turn. Never rejects: an error is the result's `error`. */
export async function runTurn(rt: SoulRuntime, emit: Emit, start: TurnStart, signal?: AbortSignal): Promise<TurnResult> {
  emit({ type: "TurnBegin", payload: { user_input: start.input } });
  const usage = tokenUsage();
  let steps = 0;
  let result: TurnResult;
  try {
    await start.prepare();
    let outcome: StepOutcome = "continue";
    while (outcome === "continue" && steps < rt.config.maxStepsPerTurn) {
      if (signal?.aborted) throw abortError(signal);
      steps++;
      outcome = await runStep(rt, emit, steps, usage, signal);
    }
    const stopReason: StopReason = outcome === "continue" ? "max_steps" : outcome;
    result = { stopReason, steps, usage };
  } catch (thrown) {
    const aborted = signal?.aborted === true;
    const error = aborted ? null : toError(thrown);
    emit({ type: "StepInterrupted", payload: { reason: aborted ? "aborted" : "error", error: error?.message ?? null } });
    result = error === null ? { stopReason: "aborted", steps, usage } : { stopReason: "error", steps, usage, error };
    // A D-Mail sent in the interrupted step is not delivered, now or in a later turn.
    rt.session.denwaRenji.fetchPendingDMail();
  }
  emit({ type: "TurnEnd", payload: { stop_reason: result.stopReason, steps, usage, error: result.error?.message ?? null } });
  return result;
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
