/** The line under a D-Mail's or a rewrite's `⟲`: the workspace files the revert restored, those it left alone, and the commands whose changes it could not undo. */
import type { FileRestoreReport } from "@kosong/workspace";
import type { Style } from "./terminal-style.js";
import { visibleControls } from "./visible-controls.js";

/** `  ↺ files restored: a, b · ! left alone (changed outside the agent): c`, or "" when no file was concerned. */
export function revertedFilesLine(files: FileRestoreReport, s: Style): string {
  const list = (paths: readonly string[]) => paths.map((p) => visibleControls(p, { oneLine: true })).join(", ");
  const parts: string[] = [];
  if (files.restored.length > 0) parts.push(`↺ files restored: ${list(files.restored)}`);
  if (files.conflicts.length > 0) parts.push(s.yellow(`! left alone (changed outside the agent): ${list(files.conflicts)}`));
  if (files.skipped.length > 0) parts.push(`not restored: ${list(files.skipped.map((f) => f.path))}`);
  for (const { command, reason } of files.commandsNotJournaled ?? []) {
    parts.push(s.yellow(`! not journaled, not undone: ${command === null ? "a command" : `\`${visibleControls(command, { oneLine: true })}\``} (${visibleControls(reason, { oneLine: true })})`));
  }
  return parts.length === 0 ? "" : `  ${s.dim(parts.join(" · "))}\n`;
}
