/**
 * What the CLI keeps beside the conversation from the soul's events, in
 * every mode: the session's soul calls it for each event (`SoulOptions.observer`).
 */
import type { Context, SoulEvent, SoulOptions } from "@kosong/soul";
import type { CommandSandbox } from "../sandbox/command-sandbox.js";
import type { CheckpointTimes } from "../sessions/checkpoint-times.js";

/** What {@link observeSoulEvent} keeps up to date. */
export interface SoulEventRecords {
  context: Context;
  sandbox: CommandSandbox | null;
  checkpointTimes: CheckpointTimes;
  /** Detaches the children of a reverted checkpoint and later; a line to show, or null. */
  afterRevert(checkpoint: number): Promise<string | null>;
  /** Shows a line (a detached child, a failed save). */
  warn(line: string): void;
}

/**
 * The session's observer: a `CheckpointCreated`'s time is recorded (in
 * order), a `Reverted` to a checkpoint detaches the children of it and later,
 * and a `ToolCallBegin` of Shell starts the sandbox's trial (see
 * `CommandSandbox.usable`) while the call's arguments still stream. Failures
 * are shown with `warn`, never thrown.
 */
export function observeSoulEvent(records: SoulEventRecords): NonNullable<SoulOptions["observer"]> {
  const { context, sandbox, checkpointTimes, afterRevert, warn } = records;
  const failed = (what: string) => (error: unknown) => warn(`could not ${what}: ${error instanceof Error ? error.message : String(error)}`);
  return async (event: SoulEvent) => {
    // The model began a Shell call: bwrap's trial sandbox (on the sandbox's first use) starts while the call's arguments stream, not after them.
    if (event.type === "ToolCallBegin" && event.payload.function.name === "Shell") void sandbox?.usable();
    if (event.type === "Reverted" && event.payload.checkpoint_id !== null) {
      const line = await afterRevert(event.payload.checkpoint_id).catch(failed("detach the reverted checkpoints' agents"));
      if (typeof line === "string") warn(line);
    }
    if (event.type !== "CheckpointCreated") return;
    // A step's checkpoint is announced before the step writes it: until then, it has the next id and sits at the end of the
    // history (asked for without a lookup through every checkpoint, or a snapshot of the history, at each step).
    const id = event.payload.id;
    const pending = { id, messageCount: context.historyLength };
    const checkpoint = id === context.nCheckpoints ? pending : (context.findCheckpoint(id) ?? pending);
    await checkpointTimes.record(checkpoint, new Date(), failed("save the checkpoint times"));
  };
}
