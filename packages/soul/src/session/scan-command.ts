/**
 * How a tool whose writes are not declared (`Shell`) has the files it
 * changes journaled: the session's file journal scans the workspace before
 * and after it (see `FileJournal.scanCommand`). Without a journal (or
 * outside a soul) it does nothing.
 */
import type { ToolContext } from "@kosong/core";
import type { ScannedCommand } from "@kosong/workspace";

const nothing: ScannedCommand = { finish: () => Promise.resolve({ changed: [], notice: null }) };

/**
 * Scans the workspace before the command; call `finish()` after it, whether
 * it succeeded or not, and tell the model the `notice` it returns when set
 * (the command's changes are then not all journaled). `command` (its text)
 * is what a revert's report names when its changes were not journaled;
 * `tool` (the tool's name and arguments as JSON) lets a crash during the
 * command be answered to the model on the next open (the call itself may
 * never have reached the conversation).
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
export function scanCommand(context: ToolContext, command: string | null = null, tool?: { name: string; arguments: string }): Promise<ScannedCommand> {
  const call = tool === undefined ? undefined : { id: context.toolCallId, ...tool };
  return context.session?.fileJournal?.scanCommand(command, call) ?? Promise.resolve(nothing);
}
