/** What `/permissions` shows: the session's permission rules by list, numbered, each with where it came from. */
import type { PermissionRules, SessionPermissionRule } from "../permissions/permission-rules.js";
import { projectRuleFiles } from "../permissions/permission-rules.js";
import type { Style } from "./terminal-style.js";
import { visibleControls } from "./visible-controls.js";

/** The rules in the order `/permissions` numbers them (from 1): deny, ask, allow, each in the order read. */
export function listedRules(rules: PermissionRules): SessionPermissionRule[] {
  return (["deny", "ask", "allow"] as const).flatMap((effect) => rules.rules.filter((rule) => rule.effect === effect));
}

/** The lines of `/permissions` for `rules`, with how to edit them. */
export function permissionLines(rules: PermissionRules, style: Style): string[] {
  const lines: string[] = [];
  let effect = "";
  listedRules(rules).forEach((rule, i) => {
    if (rule.effect !== effect) lines.push(style.bold((effect = rule.effect)));
    const where = rule.level === "user" ? rule.file : `${rule.source} (project)`;
    lines.push(`  ${String(i + 1).padStart(2)}. ${visibleControls(rule.text, { oneLine: true })}  ${style.dim(visibleControls(where, { oneLine: true }))}`);
  });
  if (lines.length === 0) lines.push("No permission rules.");
  const project = rules.files.projectTrusted ? `${projectRuleFiles[0]} (this project's)` : "this project's files once you trust the workspace";
  lines.push(style.dim(`/permissions allow|ask|deny <Rule> adds to ${rules.files.userFile} (yours); /permissions project allow|ask|deny <Rule> to ${project}; /permissions remove <n> removes rule n from its file. A rule: Tool or Tool(pattern), e.g. Shell(git status), WriteFile(src/**).`));
  return lines;
}
