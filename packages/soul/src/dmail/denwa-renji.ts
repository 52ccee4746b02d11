/**
 * The D-Mail switchboard (kimi-cli's `DenwaRenji`, the "phone microwave"):
 * the `SendDMail` tool leaves one D-Mail here, and the soul picks it up when
 * the step ends, reverts the context to the D-Mail's checkpoint and goes on
 * from there with the message.
 */
import { SoulError } from "../errors.js";

/** A message the model sends to its past self at checkpoint `checkpoint_id`. */
export interface DMail {
  /** What the past self should know. */
  message: string;
  /** The checkpoint to go back to (an id the context has: `0 <= id < nCheckpoints`). */
  checkpoint_id: number;
}

/** A D-Mail that cannot be sent: one is already pending, or its checkpoint does not exist. */
export class DenwaRenjiError extends SoulError {
  static override readonly brand: string = "@kosong/soul.error.DenwaRenjiError";

  constructor(message: string) {
    super(message);
  }
}

/** Holds at most one pending D-Mail and knows which checkpoints exist. */
export class DenwaRenji {
  #pending: DMail | null = null;
  #nCheckpoints = 0;
  #firstCheckpoint = 0;

  /** How many checkpoints the context has (ids `0 .. n-1`, from {@link firstCheckpoint} on after a compaction); the soul keeps it current. */
  get nCheckpoints(): number {
    return this.#nCheckpoints;
  }

  /** The smallest checkpoint id that exists (0 until a compaction removes the earlier ones). */
  get firstCheckpoint(): number {
    return this.#firstCheckpoint;
  }

  /** Sets how many checkpoints exist, and the first id that still does (default 0). */
  setNCheckpoints(n: number, first = 0): void {
    this.#nCheckpoints = n;
    this.#firstCheckpoint = Math.min(first, n);
  }

  /** The pending D-Mail, if any, without taking it. */
  get pending(): DMail | null {
    return this.#pending;
  }

  /**
   * Leaves a D-Mail for the soul.
   * @throws DenwaRenjiError when one is already pending, or the checkpoint is not `firstCheckpoint <= id < nCheckpoints`.
   */
  sendDMail(dmail: DMail): void {
    if (this.#pending !== null) throw new DenwaRenjiError("Only one D-Mail can be sent at a time.");
    const id = dmail.checkpoint_id;
    if (!Number.isInteger(id) || id < 0) throw new DenwaRenjiError(`The checkpoint ID must be a non-negative integer, got ${String(id)}.`);
    if (id >= this.#nCheckpoints || id < this.#firstCheckpoint) {
      const known = this.#nCheckpoints === 0 ? "there is no checkpoint yet" : `existing checkpoints: ${this.#firstCheckpoint} to ${this.#nCheckpoints - 1}`;
      const gone = id < this.#firstCheckpoint ? " any more: a compaction removed it" : "";
      throw new DenwaRenjiError(`Checkpoint ${id} does not exist${gone} (${known}).`);
    }
    this.#pending = { message: dmail.message, checkpoint_id: id };
  }

  /** Takes the pending D-Mail (leaving none). */
  fetchPendingDMail(): DMail | null {
    const dmail = this.#pending;
    this.#pending = null;
    return dmail;
  }
}
