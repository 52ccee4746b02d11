import { SoulError } from "../errors.js";

/** A checkpoint as a caller names it: its id, and its label when it has one. */
export interface CheckpointName {
  id: number;
  label?: string;
}

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
export class CheckpointNotFoundError extends SoulError {
  static override readonly brand: string = "@kosong/soul.error.CheckpointNotFoundError";

  /** The id or label that was asked for. */
  readonly requested: number | string;
  /** The checkpoints that exist, oldest first. */
  readonly available: readonly CheckpointName[];

  constructor(requested: number | string, available: readonly CheckpointName[]) {
    const what = typeof requested === "number" ? `checkpoint ${requested}` : `checkpoint labelled ${JSON.stringify(requested)}`;
    super(`no ${what}: ${describe(available)}`);
    this.requested = requested;
    this.available = available;
  }
}
