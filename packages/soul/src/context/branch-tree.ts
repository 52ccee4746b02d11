/**
 * The branch tree of a context: the current log and its rotations, each a
 * branch that left another one at a checkpoint, built from the rotations'
 * notes alone (no rotation is read), so listing 1,000 branches costs one
 * listing of the log's rotations.
 */
import type { LogRotationInfo } from "@kosong/context";

/** One branch of a context's conversation (see `Context.branches()`). */
export interface ContextBranch {
  /** The rotation holding it (`Context.restoreRotation(n)` makes it current), null for the current branch. */
  rotation: number | null;
  /**
   * The branch it left: a rotation number, or null for the current branch;
   * undefined for the current branch itself, the root of the tree.
   */
  parent?: number | null;
  /** What made it: `"current"`, `"revert"`, `"dmail"`, `"rewrite"`, `"clear"`, `"compaction"`, `"restore"`, `"btw"`, or `"unknown"` (a rotation without a note: written by kimi-cli, or its note lost in a crash). */
  kind: string;
  /** The checkpoint at which it left its parent, null when it shares none with it (or unknown). */
  checkpoint: number | null;
  /** How many messages it shares with its parent (0 when unknown). */
  sharedMessages: number;
  /** How many messages it holds; null when unknown. */
  messages: number | null;
  /** Its first user prompt after the shared messages (for the current branch: its first prompt), null without one or when unknown. */
  firstPrompt: string | null;
  /** Its size in the log's unit (bytes for files, records otherwise); null for the current branch. */
  size: number | null;
  /** When it was last written, ms since the epoch; null for the current branch. */
  mtimeMs: number | null;
  /** Where it is kept, for people. */
  location: string;
}

/** What the tree needs to know of the current branch. */
export interface CurrentBranch {
  location: string;
  messages: number;
  firstPrompt: string | null;
}

/**
 * The tree, current branch first, then the rotations by number. A rotation's
 * note says where it left the log that was current just after it was made.
 * When a later rotation keeps the current log (a revert, a clear, a restore:
 * every kind but `btw`, which adds a branch beside it) and the new current
 * log keeps fewer messages than an earlier branch shared with it, that
 * branch's fork point survives only in the later rotation: it becomes that
 * rotation's child. O(rotations × branches of the current), no I/O.
 */
export function branchTree(rotations: readonly LogRotationInfo[], current: CurrentBranch): ContextBranch[] {
  const branches: ContextBranch[] = [];
  /** The branches whose parent is the current log. */
  let ofCurrent: ContextBranch[] = [];
  for (const rotation of [...rotations].sort((a, b) => a.n - b.n)) {
    const { n, note, size, mtimeMs, location } = rotation;
    const shared = note?.sharedMessages ?? 0;
    const branch: ContextBranch = {
      rotation: n,
      parent: null,
      kind: note?.kind ?? "unknown",
      checkpoint: note?.checkpoint ?? null,
      sharedMessages: shared,
      messages: note?.messages ?? null,
      firstPrompt: note?.firstPrompt ?? null,
      size,
      mtimeMs,
      location,
    };
    if (branch.kind !== "btw") {
      const kept: ContextBranch[] = [];
      for (const child of ofCurrent) {
        if (child.sharedMessages > shared) child.parent = n;
        else kept.push(child);
      }
      ofCurrent = kept;
    }
    ofCurrent.push(branch);
    branches.push(branch);
  }
  const root: ContextBranch = {
    rotation: null,
    kind: "current",
    checkpoint: null,
    sharedMessages: 0,
    messages: current.messages,
    firstPrompt: current.firstPrompt,
    size: null,
    mtimeMs: null,
    location: current.location,
  };
  return [root, ...branches];
}
