/** How a tool whose writes are not declared (a shell) has the files it changes journaled. */
import type { JournalingToolContext, ScannedCommand } from "./tool-journal.js";

const noScan: ScannedCommand = { finish: () => Promise.resolve({ changed: [], notice: null }) };

/**
 * Scans the workspace before the command; call `finish()` after it, whether
 * it succeeded or not, and tell the model the `notice` it returns when set
 * (the command's changes are then not all journaled). `command` (its text)
 * is what a revert's report names when its changes were not journaled.
 * Without a journal it does nothing.
 *
 * ```ts
 * const scan = await scanCommand(context);
 * try {
 *   await runTheCommand();
 * } finally {
 *   await scan.finish();
 * }
 * ```
 */
export function scanCommand(context: JournalingToolContext, command: string | null = null): Promise<ScannedCommand> {
  return context.session?.fileJournal?.scanCommand(command) ?? Promise.resolve(noScan);
}
