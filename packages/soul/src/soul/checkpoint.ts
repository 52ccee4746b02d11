/**
 * Making a checkpoint as the loop does: visible to the model when D-Mail is
 * on, announced with `CheckpointCreated`, and known to the D-Mail switchboard.
 */
import type { Message } from "@kosong/core";
import type { ContextCheckpoint } from "../context/index.js";
import type { Emit, SoulRuntime } from "./runtime.js";

/** Makes the next checkpoint (visible to the model when D-Mail is enabled), labelled `label`. */
export async function makeCheckpoint(rt: SoulRuntime, emit: Emit, label?: string): Promise<void> {
  announceCheckpoint(rt, emit, await rt.context.checkpoint({ addUserMessage: rt.dmailEnabled, label }));
}

/**
 * Tells the D-Mail switchboard and the host about a checkpoint the context
 * made (by {@link makeCheckpoint}, or with a revert or a clear as their `then`).
 */
export function announceCheckpoint(rt: SoulRuntime, emit: Emit, checkpoint: ContextCheckpoint | undefined): void {
  if (checkpoint === undefined) return;
  rt.session.denwaRenji.setNCheckpoints(rt.context.nCheckpoints, rt.context.checkpoints[0]?.id ?? rt.context.nCheckpoints);
  emit({ type: "CheckpointCreated", payload: { id: checkpoint.id, label: checkpoint.label ?? null } });
}

const checkpointText = /^<system>CHECKPOINT (\d+)<\/system>$/;

/** The id of a visible checkpoint message (`<system>CHECKPOINT n</system>`), null for any other message. */
export function checkpointMessageId(message: Message | undefined): number | null {
  const part = message?.content[0];
  if (message?.role !== "user" || message.content.length !== 1 || part?.type !== "text") return null;
  const match = checkpointText.exec(part.text);
  return match === null ? null : Number(match[1]);
}
