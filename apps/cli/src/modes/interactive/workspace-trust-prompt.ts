/**
 * The question at start-up when the workspace brings hooks the user has not
 * trusted yet: every command is shown (controls made visible) with its event
 * and file, and nothing runs unless the answer is yes.
 */
import path from "node:path";
import type { HookDefinition } from "../../hooks/hook-definition.js";
import { visibleControls } from "../../render/visible-controls.js";
import type { Style } from "../../render/terminal-style.js";
import type { TerminalInput } from "./terminal-input.js";

/** Shows the workspace's hooks and asks whether to run them; true for yes. */
export async function askWorkspaceTrust(hooks: readonly HookDefinition[], input: TerminalInput, print: (line: string) => void, style: Style): Promise<boolean> {
  print(style.yellow(`This workspace defines ${hooks.length} hook command${hooks.length === 1 ? "" : "s"} that kosong would run on your machine:`));
  for (const hook of hooks) {
    const matcher = hook.matcher ? ` (${visibleControls(hook.matcher, { oneLine: true })})` : "";
    print(`  ${style.bold(hook.event)}${matcher} ${style.dim(`from ${visibleControls(path.basename(path.dirname(hook.source)) + "/" + path.basename(hook.source), { oneLine: true })}`)}`);
    print(`    ${visibleControls(hook.command, { oneLine: true })}`);
  }
  const answer = await input.readLine("Trust this workspace and run its hooks? (remembered until they change) [y/N] ", { remember: false });
  const yes = answer.kind === "line" && /^y(es)?$/i.test(answer.text.trim());
  print(yes ? "Workspace hooks on." : style.dim("Workspace hooks not run."));
  return yes;
}
