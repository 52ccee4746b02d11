import { createErrorMarker, KosongError } from "@kosong/core";

/** A checkpoint as a caller names it: its id, and its label when it has one. */
export interface CheckpointName {
  id: number;
  label?: string;
}

const marker = createErrorMarker("@kosong/soul.error.CheckpointNotFoundError");

function describe(checkpoints: readonly CheckpointName[]): string {
  if (checkpoints.length === 0) return "there are no checkpoints";
  const names = checkpoints.map((c) => (c.label === undefined ? String(c.id) : `${c.id} (${JSON.stringify(c.label)})`));
  return `the checkpoints are ${names.join(", ")}`;
}

/**
 * `Context.revertTo` named a checkpoint that the context does not have. The
 * message and `available` list the checkpoints that exist; nothing was
 * changed.
 */
export class CheckpointNotFoundError extends KosongError {
  /** The id or label that was asked for. */
  readonly requested: number | string;
  /** The checkpoints that exist, oldest first. */
  readonly available: readonly CheckpointName[];

  constructor(requested: number | string, available: readonly CheckpointName[]) {
    const what = typeof requested === "number" ? `checkpoint ${requested}` : `checkpoint labelled ${JSON.stringify(requested)}`;
    super(`no ${what}: ${describe(available)}`);
    this.requested = requested;
    this.available = available;
    marker.mark(this);
  }

  /** True when `value` is a CheckpointNotFoundError from any copy of this package. */
  static override isInstance(value: unknown): value is CheckpointNotFoundError {
    return marker.is(value);
  }
}
