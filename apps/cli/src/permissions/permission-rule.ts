/**
 * One permission rule, in Claude Code's shape: `Tool` (every call of the
 * tool) or `Tool(pattern)`. Claude Code's tool names are read as kosong's
 * (`Bash` → Shell, `Edit`/`MultiEdit` → EditFile, `Write` → WriteFile,
 * `Read` → ReadFile).
 *
 * - `Shell(git status)` matches exactly that command; `Shell(npm run test:*)`
 *   matches commands starting with `npm run test`. For `allow`, a prefix
 *   covers only plain words with no option or assignment after the prefix
 *   (`Shell(git log:*)` never allows `git log --output=x`), as session
 *   approvals do; for `deny`, a rule matches any part of a compound command
 *   (`a && b`, `a; b`, `a | b`).
 * - `WriteFile(src/**)`, `EditFile(...)`, `ReadFile(...)`: the path, relative
 *   to the workspace, matches the glob (`**` any folders, `*` and `?` within
 *   one name).
 * - `FetchURL(domain:example.com)` (Claude Code's `WebFetch(domain:...)`),
 *   also `FetchURL(*.example.com)` or `FetchURL(host:port)`: the URL's host
 *   (FetchURL checks each host a redirect leads to against the rules too).
 * - Other tools (MCP: `mcp__server__tool`, or `mcp__server` for all of a
 *   server's) match by name only.
 */

/** Which list a rule is in: deny wins over ask, ask over allow. */
export type PermissionEffect = "allow" | "ask" | "deny";

/** A parsed rule. */
export interface PermissionRule {
  effect: PermissionEffect;
  /** The rule as written. */
  text: string;
  /** Where it came from (a file), for `/permissions` and messages. */
  source: string;
  /** kosong's tool name, or an MCP server's prefix (`mcp__server`). */
  tool: string;
  /** The pattern in parentheses, or null for every call. */
  pattern: string | null;
}

import { hostAllowed } from "../web/host-allowed.js";

const claudeNames: Record<string, string> = { Bash: "Shell", Edit: "EditFile", MultiEdit: "EditFile", Write: "WriteFile", Read: "ReadFile", WebFetch: "FetchURL" };
const ruleShape = /^([A-Za-z_][\w-]*)(?:\((.*)\))?$/s;

/** The rule `text`, or null when it is not `Tool` or `Tool(pattern)`. */
export function parsePermissionRule(text: string, effect: PermissionEffect, source: string): PermissionRule | null {
  const match = ruleShape.exec(text.trim());
  if (match === null) return null;
  const tool = claudeNames[match[1]!] ?? match[1]!;
  const pattern = match[2] === undefined || match[2].trim() === "" || match[2].trim() === "*" ? null : match[2].trim();
  return { effect, text, source, tool, pattern };
}

/** Plain words only (as in `shell-approval.ts`): letters, digits and `_@%+=:,./-`. */
const plainCommand = /^[\w@%+=:,./-]+(?:[ \t]+[\w@%+=:,./-]+)*$/;
const optionOrAssignment = /^-|=/;

/** True when `rule` covers the call of `tool` with `args` (the parsed arguments); `workspace` roots file patterns. */
export function ruleMatches(rule: PermissionRule, tool: string, args: Record<string, unknown>, relativePath: (p: string) => string | null): boolean {
  if (rule.tool !== tool && !(tool.startsWith(`${rule.tool}__`) && rule.tool.startsWith("mcp__"))) return false;
  if (rule.pattern === null) return true;
  if (tool === "Shell") return typeof args.command === "string" && shellMatches(rule, args.command);
  if (tool === "WriteFile" || tool === "EditFile" || tool === "ReadFile") {
    const relative = typeof args.path === "string" ? relativePath(args.path) : null;
    return relative !== null && globToRegExp(rule.pattern.replace(/^\.?\//, "")).test(relative);
  }
  if (tool === "FetchURL") return typeof args.url === "string" && fetchHostMatches(rule.pattern, args.url);
  return false;
}

function fetchHostMatches(pattern: string, url: string): boolean {
  try {
    return hostAllowed(new URL(url).host, [pattern.replace(/^domain:/, "")]);
  } catch {
    return false;
  }
}

function shellMatches(rule: PermissionRule, command: string): boolean {
  const prefix = rule.pattern!.endsWith(":*") ? rule.pattern!.slice(0, -2).trim() : null;
  const one = (text: string) => {
    const trimmed = text.trim();
    if (prefix === null) return trimmed === rule.pattern;
    if (!trimmed.startsWith(prefix)) return false;
    if (rule.effect === "deny") return true;
    const rest = trimmed.slice(prefix.length);
    return plainCommand.test(trimmed) && !rest.split(/[ \t]+/).some((word) => optionOrAssignment.test(word));
  };
  if (rule.effect !== "deny") return one(command);
  return one(command) || command.split(/;|&&|\|\||\||&|\n|\$\(|`|\(|\)/).some(one);
}

function globToRegExp(glob: string): RegExp {
  let body = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      body += glob[i + 2] === "/" ? "(?:.*/)?" : ".*";
      i += glob[i + 2] === "/" ? 2 : 1;
    } else if (c === "*") body += "[^/]*";
    else if (c === "?") body += "[^/]";
    else body += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${body}$`);
}

/**
 * The allow rule that an "approve for the session" of `action` (an approval
 * key) becomes when saved for the project: `Shell: exactly X` → `Shell(X)`,
 * `Shell: git log` → `Shell(git log:*)` (which, like the session approval,
 * covers no options), a tool's name → itself. Null for what no rule should
 * cover (a command outside the sandbox) or cannot be written as a rule.
 */
export function ruleForApproval(action: string): string | null {
  if (action.endsWith(" outside the sandbox")) return null;
  const exact = /^Shell: exactly (.+)$/s.exec(action);
  if (exact !== null) return /[()\n]/.test(exact[1]!) ? null : `Shell(${exact[1]})`;
  const prefix = /^Shell: (.+)$/.exec(action);
  if (prefix !== null) return `Shell(${prefix[1]}:*)`;
  return /^[\w-]+$/.test(action) ? action : null;
}
