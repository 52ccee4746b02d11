/**
 * The one write of a step. A step starts from a checkpoint that the model
 * sees (its visible message, with D-Mail on) and may send a D-Mail to, but
 * the checkpoint is written with the step's token count and messages, as
 * one `Context.commit`: one append and one fsync per step. The batch is
 * the loop's, so the context holds nothing back.
 */
import type { Message } from "@kosong/core";
import { checkpointMessage, type CheckpointOptions, type ContextStep } from "../context/index.js";
import { oldestCheckpointId, requestHistory } from "../context/context.js";
import type { Emit, SoulRuntime } from "./runtime.js";

/** A step's write in the making: its checkpoint, until {@link StepBatch.commit} or {@link StepBatch.settle} writes it. */
export interface StepBatch {
  /**
   * The history the step's request sends: the context's (lent to the
   * request, see `requestHistory`), then the checkpoint's visible message
   * while the checkpoint is not written.
   */
  history(): readonly Message[];
  /**
   * Writes the checkpoint now, on its own, if it is not written yet: before
   * a compaction replaces the log, or when the step fails (a failed step
   * keeps its checkpoint, as the host was told of it).
   */
  settle(): Promise<void>;
  /** Writes the checkpoint (unless settled), then the step's token count and messages, as one append. */
  commit(step: Omit<ContextStep, "checkpoint">): Promise<void>;
}

/** Options of {@link openStepBatch}. */
export interface StepBatchOptions {
  /** The checkpoint's label. */
  label?: string;
  /**
   * Whether the model is sent the checkpoint's visible message (default:
   * when D-Mail is on). The checkpoint a turn makes before the user's
   * message has none: a D-Mail to it would drop the user's message, and the
   * first step's checkpoint, right after that message, serves the model.
   */
  marker?: boolean;
}

/**
 * Opens the batch of a step: plans its checkpoint (the next id, labelled
 * `label`), marks it in the file journal (the step's file changes come
 * after it, so a revert to it undoes them), tells the D-Mail switchboard it
 * exists and emits `CheckpointCreated` (the model may name it before it is
 * written).
 */
export async function openStepBatch(rt: SoulRuntime, emit: Emit, options: StepBatchOptions = {}): Promise<StepBatch> {
  const { context } = rt;
  const { label, marker = rt.dmailEnabled } = options;
  const id = await context.markNextCheckpoint();
  const visible = marker ? checkpointMessage(id) : null;
  let checkpoint: CheckpointOptions | null = label === undefined ? { addUserMessage: marker } : { addUserMessage: marker, label };
  rt.session.denwaRenji.setNCheckpoints(id + 1, oldestCheckpointId(context) ?? id);
  emit({ type: "CheckpointCreated", payload: { id, label: label ?? null } });
  const write = async (step: ContextStep): Promise<void> => {
    await context.commit(checkpoint === null ? step : { ...step, checkpoint });
    checkpoint = null;
  };
  return {
    history: () => (checkpoint === null || visible === null ? requestHistory(context) : [...requestHistory(context), visible]),
    settle: () => (checkpoint === null ? Promise.resolve() : write({})),
    commit: write,
  };
}
