/**
 * How a turn starts, as plain data the `Soul` hands down: the user's
 * message, or the host's rewrite of the history; {@link prepareTurn} puts it
 * into the context.
 */
import type { Message } from "@kosong/core";
import type { UserInput } from "../events/events.js";
import { submitPrompt } from "../hooks/submit-prompt.js";
import { applyRewrite } from "./rewrite.js";
import type { Emit, SoulRuntime } from "./runtime.js";
import { openStepBatch } from "./step-batch.js";

/** A turn on the user's input: its message (as the prompt hooks leave it) is appended with the turn's checkpoint. */
export interface InputTurnStart {
  kind: "input";
  /** What `TurnBegin` reports. */
  input: UserInput;
  /** The input as the message appended. */
  message: Message;
  /** The label of the turn's checkpoint. */
  label?: string;
}

/** A turn on a rewritten history: everything from the host message at `at` is replaced by `tail`. */
export interface RewriteTurnStart {
  kind: "rewrite";
  /** What `TurnBegin` reports: the replacement's content. */
  input: UserInput;
  /** The position in the context's history of the message replaced. */
  at: number;
  /** The replacement, then the other results of its call (see `rewrittenTail`). */
  tail: Message[];
}

/** How a turn starts. */
export type TurnStart = InputTurnStart | RewriteTurnStart;

/** Puts the turn's start into the context (may be aborted; an error ends the turn). */
export async function prepareTurn(rt: SoulRuntime, emit: Emit, start: TurnStart): Promise<void> {
  if (start.kind === "rewrite") return applyRewrite(rt, emit, start.at, start.tail);
  const submitted = await submitPrompt(rt, emit, start.input, start.message);
  if (rt.context.systemPrompt === null) await rt.context.writeSystemPrompt(rt.agent.systemPrompt);
  // The turn's checkpoint and the user's message: one write. The model is not sent its marker (see StepBatchOptions.marker).
  await (await openStepBatch(rt, emit, { label: start.label, marker: false })).commit({ messages: [submitted] });
}
