/** How a tool declares the files it is about to change, so that a revert of the conversation restores them. */
import type { DeclaredWrite, JournalingToolContext } from "./tool-journal.js";

const noWrite: DeclaredWrite = { notJournaled: [], done: () => Promise.resolve() };

/**
 * Records the state of `paths` (absolute inside the workspace, or relative
 * to it) before the tool changes them; call `done()` after the write,
 * whether it succeeded or not. Without a journal it does nothing.
 *
 * ```ts
 * const declared = await declareWrite(context, [file]);
 * try {
 *   await writeTheFile();
 * } finally {
 *   await declared.done();
 * }
 * ```
 */
export function declareWrite(context: JournalingToolContext, paths: readonly string[]): Promise<DeclaredWrite> {
  return context.session?.fileJournal?.declareWrite(paths) ?? Promise.resolve(noWrite);
}

