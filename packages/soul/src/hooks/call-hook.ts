/**
 * Calls one hook so that it cannot break the loop: a throw or a rejection
 * becomes a `Warning` event and no outcome (fail open); the outcome's
 * warnings become `Warning` events.
 */
import type { Emit } from "../loop/runtime.js";
import type { HookOutcome } from "./soul-hooks.js";

/** Runs `hook(input)` when it is set; returns its outcome, or undefined when it is unset, returned nothing or failed. */
export async function callHook<I, O extends HookOutcome>(
  name: string,
  hook: ((input: I) => O | void | Promise<O | void>) | undefined,
  input: I,
  emit: Emit,
): Promise<O | undefined> {
  if (hook === undefined) return undefined;
  let outcome: O | void;
  try {
    outcome = await hook(input);
  } catch (error) {
    emit({ type: "Warning", payload: { code: "hook_failed", message: `The ${name} hook failed (ignored): ${error instanceof Error ? error.message : String(error)}` } });
    return undefined;
  }
  if (outcome === undefined || outcome === null) return undefined;
  for (const message of outcome.warnings ?? []) emit({ type: "Warning", payload: { code: "hook", message } });
  return outcome;
}
