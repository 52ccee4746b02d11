/**
 * The one question at start-up when the workspace brings what acts only
 * once trusted (see `project/workspace-offer.ts`): every hook command with
 * its event and file, every `.mcp.json` server with its command (or URL),
 * and every permission rule with its list and file, controls made visible
 * (a line longer than 400 characters cut, saying so). A hostile workspace
 * can bring thousands: each list shows its first 20 and says how many more
 * there are. The answer covers all of them, shown or not; nothing of it
 * acts unless the answer is yes.
 */
import path from "node:path";
import type { WorkspaceOffer } from "../../project/workspace-offer.js";
import { visibleControls } from "../../render/visible-controls.js";
import type { Style } from "../../render/terminal-style.js";
import type { TerminalInput } from "./terminal-input.js";

/** Characters of one command, URL or rule shown; a longer one is cut, saying how much more there is. */
const maxShown = 400;
const shown = (text: string) => {
  const line = visibleControls(text, { oneLine: true });
  return line.length <= maxShown ? line : `${line.slice(0, maxShown)}… (${line.length - maxShown} more characters)`;
};
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
/** Entries of one list shown; the rest are counted, not shown. */
const maxListed = 20;
/** Prints the first `maxListed` of `items` with `show`, then how many more there are (`noun`: what they are, plural). */
function printCapped<T>(items: readonly T[], show: (item: T) => void, print: (line: string) => void, style: Style, noun: string): void {
  for (const item of items.slice(0, maxListed)) show(item);
  const rest = items.length - maxListed;
  if (rest > 0) print(style.dim(`  … and ${rest.toLocaleString("en-US")} more ${noun}, not shown (trusting the workspace trusts them too)`));
}

/** Shows what the workspace brings and asks whether to trust it; true for yes. */
export async function askWorkspaceTrust(offer: WorkspaceOffer, input: TerminalInput, print: (line: string) => void, style: Style): Promise<boolean> {
  const acts: string[] = [];
  if (offer.hooks.length > 0) {
    acts.push("run its hooks");
    print(style.yellow(`This workspace defines ${plural(offer.hooks.length, "hook command", "hook commands")} that kosong would run on your machine:`));
    const showHook = (hook: WorkspaceOffer["hooks"][number]) => {
      const matcher = hook.matcher ? ` (${shown(hook.matcher)})` : "";
      print(`  ${style.bold(hook.event)}${matcher} ${style.dim(`from ${shown(path.basename(path.dirname(hook.source)) + "/" + path.basename(hook.source))}`)}`);
      print(`    ${shown(hook.command)}`);
    };
    printCapped(offer.hooks, showHook, print, style, "hook commands");
  }
  if (offer.mcpServers.length > 0) {
    acts.push("start its MCP servers");
    print(style.yellow(`Its .mcp.json names ${plural(offer.mcpServers.length, "MCP server", "MCP servers")} that kosong would start or connect to:`));
    printCapped(offer.mcpServers, (server) => print(`  ${style.bold(shown(server.name))}: ${shown(server.launch)}`), print, style, "MCP servers");
  }
  const rules = offer.rules.flatMap(({ file, lists }) => (["deny", "ask", "allow"] as const).flatMap((effect) => (lists[effect] ?? []).map((text) => ({ effect, text, file }))));
  if (rules.length > 0) {
    acts.push("use its permission rules");
    print(style.yellow(`It sets ${plural(rules.length, "permission rule", "permission rules")} (an allow rule lets matching tool calls run without asking):`));
    printCapped(rules, (rule) => print(`  ${style.bold(rule.effect)} ${shown(rule.text)} ${style.dim(`from ${shown(rule.file)}`)}`), print, style, "permission rules");
  }
  const what = acts.length === 1 ? acts[0]! : `${acts.slice(0, -1).join(", ")} and ${acts.at(-1)!}`;
  const answer = await input.readLine(`Trust this workspace and ${what}? (remembered until they change) [y/N] `, { remember: false });
  const yes = answer.kind === "line" && /^y(es)?$/i.test(answer.text.trim());
  print(yes ? "Workspace trusted." : style.dim("Workspace not trusted: none of it is used."));
  return yes;
}
