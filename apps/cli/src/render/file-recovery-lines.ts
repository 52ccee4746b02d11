/** What reopening a session found of work on the workspace's files that a crash cut: shown when the session starts. */
import type { FileRecoveryReport } from "@kosong/workspace";
import { count } from "./count.js";
import { visibleControls } from "./visible-controls.js";

/** The lines (plain text, none when nothing was cut) telling what the file journal finished or found on reopening. */
export function fileRecoveryLines(report: FileRecoveryReport | null): string[] {
  if (report === null) return [];
  const list = (paths: readonly string[]) => paths.map((p) => visibleControls(p, { oneLine: true })).join(", ");
  const lines: string[] = [];
  if (report.outcome !== null) {
    const done = report.outcome === "completed" ? "completed" : "rolled back";
    lines.push(`A file restore cut by a crash was ${done}: ${count(report.files.restored.length, "file")} put back${report.files.skipped.length > 0 ? `, not restored: ${list(report.files.skipped.map((f) => f.path))}` : ""}.`);
  }
  const command = report.command;
  if (command !== null) {
    lines.push("A Shell command was cut by a crash.");
    if (command.created.length > 0) lines.push(`  Files it created (a revert deletes them): ${list(command.created)}`);
    if (command.notRestorable.length > 0) lines.push(`  Files it changed or deleted, which a revert cannot restore (their content before it was not kept): ${list(command.notRestorable)}`);
    // The notice quotes the workspace (a path over a limit): shown, not obeyed.
    if (command.notice !== null) lines.push(`  ${visibleControls(command.notice, { oneLine: true })}.`);
  }
  return lines;
}
