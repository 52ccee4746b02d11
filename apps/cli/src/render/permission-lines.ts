/** What `/permissions` shows: the session's permission rules by list, each with where it came from. */
import type { PermissionRules } from "../permissions/permission-rules.js";
import { projectRuleFiles } from "../permissions/permission-rules.js";
import type { Style } from "./terminal-style.js";
import { visibleControls } from "./visible-controls.js";

/** The lines of `/permissions` for `rules`; `configPath` is where user rules are edited. */
export function permissionLines(rules: PermissionRules, configPath: string | null, style: Style): string[] {
  const lines: string[] = [];
  for (const effect of ["deny", "ask", "allow"] as const) {
    const listed = rules.rules.filter((rule) => rule.effect === effect);
    if (listed.length === 0) continue;
    lines.push(style.bold(effect));
    for (const rule of listed) lines.push(`  ${visibleControls(rule.text, { oneLine: true })}  ${style.dim(visibleControls(rule.source, { oneLine: true }))}`);
  }
  if (lines.length === 0) lines.push("No permission rules.");
  lines.push(style.dim(`Edit them under "permissions" in ${configPath ?? "the config file"} (yours) or ${projectRuleFiles.join(", ")} (this project's, used once you trust it).`));
  return lines;
}
