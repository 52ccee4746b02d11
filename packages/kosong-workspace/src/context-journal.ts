/**
 * The seam between a checkpointed conversation (the soul's `Context`) and a
 * journal of the workspace files: the whole-log operations the conversation
 * drives, and nothing else. `FileJournal` implements it; a conversation
 * holds one as `ContextJournal` and never names the class. Any
 * implementation runs `describeContextJournalContract` from
 * `@kosong/workspace/testing` against itself.
 *
 * The protocol, as the conversation drives it (one operation at a time):
 *
 * 1. **Checkpoints.** Before the changes that come after checkpoint `id`
 *    happen, {@link ContextJournal.markCheckpoint} marks it, once.
 * 2. **Reverts** (a revert to a checkpoint, a clear, an old log made
 *    current again): {@link ContextJournal.beginRestore} durably records
 *    the restore with a fingerprint of the conversation before the step,
 *    the conversation takes its step, then
 *    {@link ContextJournal.finishRestore} puts the files back (or
 *    {@link ContextJournal.abortRestore} when the step failed: nothing
 *    changed).
 * 3. **Recovery.** When the conversation is read again after a crash,
 *    {@link ContextJournal.recover} gets the fingerprint of what was read:
 *    another one than a restore recorded means the step happened, and the
 *    restore is completed; the same means it did not, and it is rolled back.
 */
import type { ToolJournal } from "./tool-journal.js";
import type { CommandToolCall } from "./journal-records.js";
import type { RestoreKind } from "./journal-records.js";

/** What a revert did (or would do) to the workspace files. Paths are relative to the workspace. */
export interface FileRestoreReport {
  /** Files put back (rewritten, re-created, deleted). */
  restored: string[];
  /** Files not restored, with why (not journaled: over the size cap, not a regular file; a failed write). */
  skipped: { path: string; reason: string }[];
  /** Files changed outside the agent since it last wrote them: left alone (restored when forced). */
  conflicts: string[];
  /** Set when nothing could be planned (the journal has no record of the checkpoint). */
  notice?: string;
  /**
   * The commands (`Shell`) since the target whose changes were not (all)
   * journaled, so not restored (a scan over its limit), with why; absent when none.
   */
  commandsNotJournaled?: { command: string | null; reason: string }[];
}

/** Where a restore goes: a checkpoint of the current conversation, or the end of a rotation. */
export type RestoreTarget = { checkpoint: number } | { rotation: number } | null;

/** What reopening found of a restore a crash interrupted. */
export interface FileRecoveryReport {
  /**
   * Of a restore a crash interrupted: "completed" when the conversation had
   * been reverted (the files were then restored too), "rolled-back" when
   * not; null when no restore was interrupted (only a command).
   */
  outcome: "completed" | "rolled-back" | null;
  /** The files of that restore. */
  files: FileRestoreReport;
  /** A command (`Shell`) a crash interrupted, and what it changed; null when none was. */
  command: InterruptedCommandReport | null;
}

/**
 * What a command a crash interrupted changed, found on the next open by
 * scanning the workspace again and comparing with the scan made before the
 * command (whose listing was made durable before it ran).
 */
export interface InterruptedCommandReport {
  /** Files it created: journaled as not existing, so a revert deletes them. */
  created: string[];
  /** Files it changed or deleted: their content before it was not kept, so a revert cannot restore them (it says so). */
  notRestorable: string[];
  /** Why what it changed is not all known (the workspace is over the scan's limit now), else null. */
  notice: string | null;
  /** The tool calls of the interrupted commands, for those whose tool gave it (see {@link ToolJournal.scanCommand}). */
  calls: CommandToolCall[];
}

/** A restore begun by {@link ContextJournal.beginRestore}, finished by {@link ContextJournal.finishRestore}. */
export interface PendingRestore {
  readonly seq: number;
  readonly report: FileRestoreReport;
}

/**
 * What a checkpointed conversation asks of a journal of the workspace files
 * (see the file's doc for the protocol). Every method runs after the ones
 * called before it.
 */
export interface ContextJournal {
  /**
   * Records that the conversation made checkpoint `id` (on its current
   * branch): the changes recorded after it are undone by a restore to it.
   * Marking the newest marked checkpoint again changes nothing.
   */
  markCheckpoint(id: number): Promise<void>;
  /**
   * Plans a restore to `target` and records it, durably, before anything
   * changes; `before` is the fingerprint of the conversation before its
   * step. A clear (`kind` "clear", `target` null) restores no file. With
   * `force`, files changed outside the agent are restored too (else they
   * are conflicts, left alone).
   */
  beginRestore(kind: RestoreKind, target: RestoreTarget, before: string, force?: boolean): Promise<PendingRestore>;
  /** After the conversation's step (which kept its old log as `rotation`): restores the files of `pending` and reports them. */
  finishRestore(pending: PendingRestore, rotation: number | null): Promise<FileRestoreReport>;
  /** Forgets `pending`: the conversation's step failed, nothing changed. */
  abortRestore(pending: PendingRestore): Promise<void>;
  /**
   * Finishes what a crash interrupted, once, when the conversation is read:
   * a restore (completed when `fingerprint` differs from the one it
   * recorded, else rolled back; `rotations` are the conversation's rotation
   * numbers now) and a command it cut. Null when nothing was interrupted.
   */
  recover(fingerprint: string, rotations: readonly number[]): Promise<FileRecoveryReport | null>;
}
