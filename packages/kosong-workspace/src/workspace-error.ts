/**
 * The root of every error @kosong/workspace throws on purpose. Like core's
 * errors, each class names a `brand` (core's `KosongError` mechanism), so its
 * inherited static `isInstance(value)` recognises an error from another
 * installed copy of the package.
 */
import { KosongError } from "@kosong/core";

/** The root of the workspace's errors (confinement, the `.gitignore` matcher). */
export class WorkspaceError extends KosongError {
  static override readonly brand: string = "@kosong/workspace.error.WorkspaceError";
}
