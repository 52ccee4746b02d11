/**
 * Errors the soul throws on purpose, every one under {@link SoulError}. Like
 * core's, each class names a `brand`, so `isInstance` works across duplicate
 * installs (see core's `KosongError`).
 */
import { KosongError } from "@kosong/core";

/** The root of the soul's errors. */
export class SoulError extends KosongError {
  static override readonly brand: string = "@kosong/soul.error.SoulError";
}

/** A turn, rewrite or compaction was started while another one runs (one at a time per soul). */
export class SoulBusyError extends SoulError {
  static override readonly brand: string = "@kosong/soul.error.SoulBusyError";

  constructor(what: string) {
    super(`Cannot ${what}: the soul is already running a turn or a compaction; wait for its result (or abort it) first.`);
  }
}

/**
 * `soul.rewrite()` was asked to edit something it cannot: an index outside
 * the history, an assistant or system message, or a replacement whose role
 * differs from the message it replaces.
 */
export class RewriteTargetError extends SoulError {
  static override readonly brand: string = "@kosong/soul.error.RewriteTargetError";

  /** The message index that was asked for. */
  readonly index: number;

  constructor(index: number, problem: string) {
    super(`Cannot rewrite message ${index}: ${problem}`);
    this.index = index;
  }
}

/** `approval.respond()` named a request that is not pending (unknown, or already answered). */
export class ApprovalRequestNotFoundError extends SoulError {
  static override readonly brand: string = "@kosong/soul.error.ApprovalRequestNotFoundError";

  readonly requestId: string;

  constructor(requestId: string, pending: readonly string[]) {
    const known = pending.length === 0 ? "none is pending" : `pending: ${pending.join(", ")}`;
    super(`No pending approval request ${JSON.stringify(requestId)} (${known}).`);
    this.requestId = requestId;
  }
}

/** `run()` or `steer()` was given input with nothing in it (no part, or only blank text): providers reject empty messages. */
export class EmptyInputError extends SoulError {
  static override readonly brand: string = "@kosong/soul.error.EmptyInputError";

  constructor(what: string) {
    super(`Cannot ${what}: the input is empty (give text or another content part).`);
  }
}

/**
 * A Soul was asked to run on a Context that another Soul owns. A Context
 * belongs to the first Soul that runs an operation on it (a turn, a
 * rewrite, a compaction) until that Soul calls `release()`; two Souls on
 * one Context would interleave their turns in the file.
 */
export class ContextInUseError extends SoulError {
  static override readonly brand: string = "@kosong/soul.error.ContextInUseError";

  /** The context's location (its file, or the log's name). */
  readonly location: string;

  constructor(what: string, location: string, ownerName: string) {
    super(
      `Cannot ${what}: the context ${location} belongs to another Soul (agent ${JSON.stringify(ownerName)}). ` +
        "Call release() on that Soul first, or give this Soul its own Context.",
    );
    this.location = location;
  }
}

/** A hook (a UserPromptSubmit hook) blocked the user's prompt: nothing was written, and the turn ends with this as its error. */
export class HookBlockedError extends SoulError {
  static override readonly brand: string = "@kosong/soul.error.HookBlockedError";

  constructor(
    /** The hook event that blocked. */
    readonly event: string,
    /** Why, as the hook said. */
    readonly reason: string,
  ) {
    super(`A ${event} hook blocked the prompt: ${reason.trim() || "no reason given"}`);
  }
}
