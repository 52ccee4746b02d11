/** How a tool whose writes are not declared (a shell) has the files it changes journaled. */
import type { JournalingToolContext, ScannedCommand } from "./tool-journal.js";

const noScan: ScannedCommand = { finish: () => Promise.resolve({ changed: [], notice: null }) };

/**
 * Scans the workspace before the command; call `finish()` after it, whether
 * it succeeded or not, and tell the model the `notice` it returns when set
 * (the command's changes are then not all journaled). `command` (its text)
 * is what a revert's report names when its changes were not journaled;
 * `tool` (the tool's name and arguments as JSON) lets a crash during the
 * command be answered to the model on the next open (the call itself may
 * never have reached the conversation). Without a journal it does nothing.
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
export function scanCommand(context: JournalingToolContext, command: string | null = null, tool?: { name: string; arguments: string }): Promise<ScannedCommand> {
  const call = tool === undefined || context.toolCallId === undefined ? undefined : { id: context.toolCallId, ...tool };
  return context.session?.fileJournal?.scanCommand(command, call) ?? Promise.resolve(noScan);
}
