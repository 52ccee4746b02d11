/**
 * Before /revert, /edit and /restore: which workspace files the revert will
 * restore (with the file journal), and the user's go-ahead.
 */
import type { FileRestoreReport, RestoreTarget } from "@kosong/workspace";
import { visibleControls } from "../../render/visible-controls.js";
import type { InteractiveSession } from "./interactive-session.js";

/**
 * Shows what reverting to `target` would do to the files and asks; true
 * when the revert may go ahead (also when no file would change, or file
 * restore is off).
 */
export async function confirmFileRestore(s: InteractiveSession, target: RestoreTarget): Promise<boolean> {
  const journal = s.agent.context.fileJournal;
  if (journal === null) return true;
  const plan = await journal.preview(target);
  if (plan.restored.length === 0 && plan.skipped.length === 0 && plan.conflicts.length === 0 && (plan.commandsNotJournaled ?? []).length === 0) {
    if (plan.notice) s.print(s.style.dim(plan.notice));
    return true;
  }
  s.print(fileRestoreLines(s, plan, "will be").join("\n"));
  const answer = await s.input.readLine("Revert the conversation and these files? [y/N] ", { remember: false });
  const yes = answer.kind === "line" && /^y(es)?$/i.test(answer.text.trim());
  if (!yes) s.print("Nothing reverted.");
  return yes;
}

/** Prints what a revert did to the files, when it concerned any. */
export function printFileRestore(s: InteractiveSession, report: FileRestoreReport | undefined): void {
  const lines = report ? fileRestoreLines(s, report, "were") : [];
  if (lines.length > 0) s.print(lines.join("\n"));
}

/** The lines that list a file restore: restored (`↺`), conflicts (`!`), skipped (`-`), commands not journaled (`!`). */
export function fileRestoreLines(s: InteractiveSession, report: FileRestoreReport, tense: "will be" | "were"): string[] {
  const shown = (file: string) => visibleControls(file, { oneLine: true });
  const lines: string[] = [];
  if (report.restored.length > 0) lines.push(`Files that ${tense} restored:`, ...report.restored.map((f) => `  ↺ ${shown(f)}`));
  if (report.conflicts.length > 0) {
    lines.push(s.style.yellow("Changed outside the agent since it wrote them (left alone):"), ...report.conflicts.map((f) => `  ! ${shown(f)}`));
  }
  if (report.skipped.length > 0) lines.push("Not restored:", ...report.skipped.map((f) => `  - ${shown(f.path)}: ${visibleControls(f.reason, { oneLine: true })}`));
  const commands = report.commandsNotJournaled ?? [];
  if (commands.length > 0) {
    lines.push(s.style.yellow("Commands whose changes were not journaled (not undone):"), ...commands.map(({ command, reason }) => `  ! ${command === null ? "a command" : shown(command)}: ${visibleControls(reason, { oneLine: true })}`));
  }
  if (report.notice) lines.push(s.style.dim(report.notice));
  return lines;
}
