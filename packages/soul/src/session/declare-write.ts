/**
 * How a tool declares the files it is about to change, so that a revert of
 * the conversation restores them (the session's file journal records their
 * state first). Without a journal (or outside a soul) it does nothing.
 */
import type { ToolContext } from "@kosong/core";
import type { DeclaredWrite } from "@kosong/workspace";

const nothing: DeclaredWrite = { notJournaled: [], done: () => Promise.resolve() };

/**
 * Records the state of `paths` (absolute inside the workspace, or relative
 * to it) before the tool changes them; call `done()` after the write,
 * whether it succeeded or not.
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
export function declareWrite(context: ToolContext, paths: readonly string[]): Promise<DeclaredWrite> {
  return context.session?.fileJournal?.declareWrite(paths) ?? Promise.resolve(nothing);
}
