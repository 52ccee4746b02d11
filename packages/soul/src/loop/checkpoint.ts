/**
 * Checkpoints as the loop announces them: known to the D-Mail switchboard,
 * and reported with `CheckpointCreated`.
 */
import type { ContextCheckpoint } from "../context/index.js";
import { oldestCheckpointId } from "../context/context.js";
import type { Emit, SoulRuntime } from "./runtime.js";

/**
 * Tells the D-Mail switchboard and the host about a checkpoint the context
 * made (with a step, a revert or a clear).
 */
export function announceCheckpoint(rt: SoulRuntime, emit: Emit, checkpoint: ContextCheckpoint | undefined): void {
  if (checkpoint === undefined) return;
  rt.session.denwaRenji.setNCheckpoints(rt.context.nCheckpoints, oldestCheckpointId(rt.context) ?? rt.context.nCheckpoints);
  emit({ type: "CheckpointCreated", payload: { id: checkpoint.id, label: checkpoint.label ?? null } });
}
