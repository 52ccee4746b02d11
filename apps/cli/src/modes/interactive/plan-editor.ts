/**
 * Editing a plan before approving it (`[e]` at ExitPlanMode's approval):
 * in `$VISUAL` or `$EDITOR` when one is set (as git does: the plan in a
 * temporary Markdown file, the editor given the whole terminal, its command
 * run by `sh` so `code --wait` works), else in the prompt editor (the plan
 * on the line, Alt+Enter or Ctrl-J for a new line, Enter to finish).
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ScreenWriter, type ScreenStream } from "../../render/screen-writer.js";
import type { Style } from "../../render/terminal-style.js";
import { visibleControls } from "../../render/visible-controls.js";
import type { LineInput } from "./terminal-input.js";

/** The longest plan kept (ExitPlanMode's own limit). */
export const maxPlanLength = 20_000;

/** What editing a plan uses. */
export interface PlanEditorHost {
  input: LineInput;
  out: ScreenStream;
  style: Style;
  print(text: string): void;
  /** Where `VISUAL` and `EDITOR` are read. */
  env: NodeJS.ProcessEnv;
}

/** The plan as the user edited it, or null when they cancelled (Ctrl-C, an empty plan, a failed editor: the reason is printed). */
export async function editPlan(plan: string, host: PlanEditorHost): Promise<string | null> {
  const editor = (host.env.VISUAL || host.env.EDITOR || "").trim();
  const edited = editor ? await inEditor(editor, plan, host) : await inPrompt(plan, host);
  if (edited === null) return null;
  if (edited.trim() === "") return cancelled(host, "the edited plan is empty");
  if (edited.length > maxPlanLength) return cancelled(host, `the edited plan is longer than ${maxPlanLength} characters`);
  return edited.trim() === plan.trim() ? plan : edited.trim();
}

async function inPrompt(plan: string, host: PlanEditorHost): Promise<string | null> {
  host.print(host.style.dim("  Edit the plan: Enter approves it as edited (Alt+Enter or Ctrl-J: a new line; Ctrl-C: back)."));
  const line = await host.input.readLine(host.style.cyan("plan› "), { initial: plan, remember: false });
  return line.kind === "line" ? line.text : cancelled(host, "edit cancelled");
}

async function inEditor(editor: string, plan: string, host: PlanEditorHost): Promise<string | null> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "kosong-plan-"));
  const file = path.join(dir, "plan.md");
  const takeBack = ScreenWriter.for(host.out).handOver();
  try {
    await writeFile(file, plan.endsWith("\n") ? plan : `${plan}\n`, { mode: 0o600 });
    host.print(host.style.dim(`  Opening the plan in ${visibleControls(editor, { oneLine: true })}; save and quit to approve it as edited.`));
    const code = await new Promise<number | string>((resolve) => {
      const child = spawn("/bin/sh", ["-c", `${editor} "$1"`, "kosong-editor", file], { stdio: "inherit", env: host.env });
      child.on("error", (error) => resolve(error.message));
      child.on("exit", (exitCode, signal) => resolve(exitCode ?? signal ?? "killed"));
    });
    if (code !== 0) return cancelled(host, `the editor ended with ${code}`);
    return await readFile(file, "utf8");
  } finally {
    takeBack();
    await rm(dir, { recursive: true, force: true });
  }
}

function cancelled(host: PlanEditorHost, reason: string): null {
  host.print(host.style.yellow(`  plan unchanged: ${visibleControls(reason, { oneLine: true })}`));
  return null;
}
