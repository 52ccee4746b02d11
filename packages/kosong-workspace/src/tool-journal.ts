/**
 * The journal as a tool reaches it: a tool declares the files it is about
 * to change (`declareWrite`), or has the workspace scanned around a command
 * whose writes are not declared (`scanCommand`), through its tool context. A soul's `ToolContext` carries the session's journal as
 * `context.session.fileJournal`; without one (or outside a soul) both do
 * nothing.
 */

/** A write declared by {@link ToolJournal.declareWrite}: call {@link done} once the write is over (whether it succeeded or not). */
import type { CommandToolCall } from "./journal-records.js";
export interface DeclaredWrite {
  /** Paths whose prior state could not be kept (over the size cap, not a regular file, outside the workspace), with why. */
  notJournaled: { path: string; reason: string }[];
  /** Records the state after the write, for conflict detection. */
  done(): Promise<void>;
}

/** A command's scan begun by {@link ToolJournal.scanCommand}. */
export interface ScannedCommand {
  /**
   * After the command (whether it succeeded or not): journals the prior state
   * of each file it created, changed or deleted, and returns their paths, and
   * why (some of) what it changed is not journaled (a scan limit was hit,
   * before or after the command), else null (also when the scan is off).
   */
  finish(): Promise<{ changed: string[]; notice: string | null }>;
}

/** What a tool asks of a journal (`FileJournal` is one). */
export interface ToolJournal {
  /** Records the state of `paths` (absolute inside the workspace, or relative to it), durably, before the tool changes them. */
  declareWrite(paths: readonly string[]): Promise<DeclaredWrite>;
  /**
   * Scans the workspace before a command; {@link ScannedCommand.finish}
   * after it journals what it changed. `command` (its text) is what a
   * revert's report names when its changes were not journaled; `call`
   * (the tool call running the command) lets a crash during it be answered
   * to the model on the next open.
   */
  scanCommand(command?: string | null, call?: CommandToolCall): Promise<ScannedCommand>;
}

/** Where a tool finds the journal: a soul's `ToolContext` is one (`context.session.fileJournal`). */
export interface JournalingToolContext {
  /** The id of the tool call being run (kept with a command's scan). */
  readonly toolCallId?: string;
  readonly session?: { readonly fileJournal: ToolJournal | null };
}
