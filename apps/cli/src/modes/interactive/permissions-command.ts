/**
 * `/permissions`: lists the session's permission rules, and edits them:
 * `allow|ask|deny <Rule>` adds one to the user's config file,
 * `project allow|ask|deny <Rule>` to the project's `.kosong/settings.json`
 * (only in a trusted workspace), `remove <n>` takes rule n (as listed) out
 * of the file it came from. Each change is saved at once and used from the
 * next tool call on.
 */
import type { PermissionEffect } from "../../permissions/permission-rule.js";
import { listedRules, permissionLines } from "../../render/permission-lines.js";
import { visibleControls } from "../../render/visible-controls.js";
import type { InteractiveSession } from "./interactive-session.js";

const usage = "Usage: /permissions [allow|ask|deny <Rule>] [project allow|ask|deny <Rule>] [remove <n>]";

/** Runs `/permissions args`. */
export async function permissionsCommand(s: InteractiveSession, args: string): Promise<void> {
  const rules = s.agent.permissionRules;
  if (args === "") return s.print(permissionLines(rules, s.style).join("\n"));
  const remove = /^(?:remove|rm)\s+(\d+)$/i.exec(args);
  if (remove !== null) {
    const listed = listedRules(rules);
    const rule = listed[Number(remove[1]) - 1];
    if (rule === undefined) return s.print(`No rule ${remove[1]}: /permissions lists ${listed.length} (numbered from 1).`);
    await rules.remove(rule);
    return s.print(`Removed \`${rule.effect}: ${shown(rule.text)}\` from ${shown(rule.file)}.`);
  }
  const add = /^(project\s+)?(allow|ask|deny)\s+(\S[\s\S]*)$/i.exec(args);
  if (add === null) return s.print(usage);
  const effect = add[2]!.toLowerCase() as PermissionEffect;
  const rule = await rules.add(effect, add[3]!, add[1] ? "project" : "user");
  s.print(`Added \`${effect}: ${shown(rule.text)}\` to ${shown(rule.file)}.`);
}

const shown = (text: string) => visibleControls(text, { oneLine: true });
