/**
 * The agent loop: one turn is a preparation (the user's message, or a
 * rewrite of the history: a {@link TurnStart}), then steps until the model stops calling tools, a
 * tool is rejected without feedback, or `maxStepsPerTurn`; input steered in
 * during a step is appended after it, and the turn goes on with it. A turn
 * always ends with `TurnEnd`, also after an error or an abort.
 */
import { abortError, tokenUsage } from "@kosong/core";
import type { StopReason } from "../events/events.js";
import { addUsage, runStep, type StepOutcome } from "./run-step.js";
import { turnTools } from "./turn-tools.js";
import type { Emit, SoulRuntime } from "./runtime.js";
import type { TurnResult } from "./turn.js";
import { prepareTurn, type TurnStart } from "./turn-start.js";
import { userInputMessage } from "./user-input.js";
import { callHook } from "../hooks/call-hook.js";

/** A Stop hook keeps a turn going at most this many times (a hook that always blocks must not run the turn to its step limit). */
const maxStopHookContinuations = 8;

/** Runs a turn. Never rejects: an error is the result's `error`. */
export async function runTurn(rt: SoulRuntime, emit: Emit, start: TurnStart, signal?: AbortSignal): Promise<TurnResult> {
  emit({ type: "TurnBegin", payload: { user_input: start.input } });
  for (const warning of rt.takeWarnings()) emit({ type: "Warning", payload: warning });
  const usage = tokenUsage();
  const tools = turnTools(rt, emit, (spent) => addUsage(usage, spent));
  let steps = 0;
  let stopHookRuns = 0;
  let result: TurnResult;
  try {
    await prepareTurn(rt, emit, start);
    let stop: StopReason | null = null;
    while (stop === null) {
      if (signal?.aborted) throw abortError(signal);
      steps++;
      const outcome = await runStep(rt, emit, steps, usage, tools, signal);
      const steered = await appendSteered(rt, emit);
      // No await between the empty take in appendSteered and closing: no steered input is left behind.
      stop = stopReason(outcome, steered, steps >= rt.config.maxStepsPerTurn);
      if (stop === "no_tool_calls" && rt.hooks.stop) {
        // A Stop hook may keep the turn going (its reason is the model's next input); input steered meanwhile does too.
        const hook = await callHook("Stop", rt.hooks.stop.bind(rt.hooks), { stopReason: stop, stopHookActive: stopHookRuns > 0, steps }, emit);
        if (hook?.block !== undefined && stopHookRuns >= maxStopHookContinuations) {
          emit({ type: "Warning", payload: { code: "hook", message: `A Stop hook kept the turn going ${maxStopHookContinuations} times; the turn ends now.` } });
        } else if (hook?.block !== undefined) {
          await rt.context.appendMessage(userInputMessage(`Stop hook: ${hook.block.trim() || "keep going"}`, "continue after a Stop hook"));
          stopHookRuns++;
          stop = stopReason("continue", false, steps >= rt.config.maxStepsPerTurn);
        } else if (await appendSteered(rt, emit)) {
          stop = stopReason("continue", true, steps >= rt.config.maxStepsPerTurn);
        }
      }
    }
    rt.closeSteering();
    result = { stopReason: stop, steps, usage };
  } catch (thrown) {
    rt.closeSteering();
    const aborted = signal?.aborted === true;
    const error = aborted ? null : toError(thrown);
    emit({ type: "StepInterrupted", payload: { reason: aborted ? "aborted" : "error", error: error?.message ?? null } });
    result = error === null ? { stopReason: "aborted", steps, usage } : { stopReason: "error", steps, usage, error };
    // A D-Mail sent in the interrupted step is not delivered, now or in a later turn.
    rt.session.denwaRenji.fetchPendingDMail();
  }
  emit({ type: "TurnEnd", payload: { stop_reason: result.stopReason, steps, usage, error: result.error?.message ?? null } });
  await callHook("Notification", rt.hooks.notification?.bind(rt.hooks), { kind: "turn_done", message: `The turn ended (${result.stopReason}).` }, emit);
  return result;
}

/** Why the turn stops after a step, or null to go on: steered input makes the model answer again. */
function stopReason(outcome: StepOutcome, steered: boolean, lastStep: boolean): StopReason | null {
  if (outcome === "tool_rejected") return outcome;
  if (outcome === "no_tool_calls" && !steered) return outcome;
  return lastStep ? "max_steps" : null;
}

/**
 * Appends the input steered in so far, each as a user message with a
 * `SteerInput` event, until none is left. Returns whether there was any.
 */
async function appendSteered(rt: SoulRuntime, emit: Emit): Promise<boolean> {
  let any = false;
  for (let inputs = rt.takeSteered(); inputs.length > 0; inputs = rt.takeSteered()) {
    any = true;
    for (const input of inputs) {
      await rt.context.appendMessage(userInputMessage(input, "steer"));
      emit({ type: "SteerInput", payload: { user_input: input } });
    }
  }
  return any;
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
