/**
 * The permission rules of a session: the user's (the config file's
 * `permissions`) and, once the user trusts the workspace, the project's
 * (`.kosong/settings.json`, and Claude Code's `.claude/settings.json` and
 * `.claude/settings.local.json`). A call matched by a `deny` rule is refused
 * without asking; one matched by an `ask` rule is asked for as usual; one
 * matched by an `allow` rule only runs without asking. Deny wins over ask,
 * ask over allow.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { type PermissionEffect, type PermissionRule, parsePermissionRule, ruleMatches } from "./permission-rule.js";

/** The `permissions` object of a settings file. */
export interface PermissionLists {
  allow?: string[] | undefined;
  ask?: string[] | undefined;
  deny?: string[] | undefined;
}

/** What the rules say of a call: the deciding rule, or null when none matches. */
export interface PermissionDecision {
  effect: PermissionEffect;
  rule: PermissionRule;
}

/** The project files whose `permissions` are read (relative to the workspace). */
export const projectRuleFiles = [path.join(".kosong", "settings.json"), path.join(".claude", "settings.json"), path.join(".claude", "settings.local.json")] as const;

const effects: readonly PermissionEffect[] = ["deny", "ask", "allow"];

/** A session's rules. */
export class PermissionRules {
  readonly #rules: PermissionRule[];

  constructor(
    rules: readonly PermissionRule[],
    /** The workspace, which file patterns are relative to. */
    readonly workspace: string,
  ) {
    this.#rules = [...rules];
  }

  /** The rules, in the order they were read (and added). */
  get rules(): readonly PermissionRule[] {
    return this.#rules;
  }

  /**
   * Saves `text` as an allow rule of this project (`.kosong/settings.json`,
   * made if missing; the file's other keys kept) and uses it from now on.
   * @throws when the file cannot be written or is not a JSON object.
   */
  async allowForProject(text: string): Promise<void> {
    const rule = parsePermissionRule(text, "allow", projectRuleFiles[0]);
    if (rule === null) throw new Error(`not a permission rule: ${text}`);
    const file = path.join(this.workspace, projectRuleFiles[0]);
    const existing = await readFile(file, "utf8").then((t) => JSON.parse(t) as unknown, (error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? {} : Promise.reject(error)));
    if (typeof existing !== "object" || existing === null || Array.isArray(existing)) throw new Error(`${file} is not a JSON object`);
    const settings = existing as { permissions?: PermissionLists };
    const allow = settings.permissions?.allow ?? [];
    if (!allow.includes(text)) settings.permissions = { ...settings.permissions, allow: [...allow, text] };
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(`${file}.tmp`, `${JSON.stringify(settings, null, 2)}\n`);
    await rename(`${file}.tmp`, file);
    this.#rules.push(rule);
  }

  /** The rule deciding the call of `tool` with `args`: deny first, then ask, then allow; null when no rule matches. */
  decide(tool: string, args: Record<string, unknown>): PermissionDecision | null {
    const relative = (p: string) => {
      const rel = path.relative(this.workspace, path.resolve(this.workspace, p));
      return rel.startsWith("..") || path.isAbsolute(rel) ? null : rel.split(path.sep).join("/");
    };
    for (const effect of effects) {
      const rule = this.#rules.find((r) => r.effect === effect && ruleMatches(r, tool, args, relative));
      if (rule !== undefined) return { effect, rule };
    }
    return null;
  }
}

/** The rules of `lists` from `source`; `warn` names each rule that cannot be read. */
export function rulesOf(lists: PermissionLists, source: string, warn: (line: string) => void): PermissionRule[] {
  const out: PermissionRule[] = [];
  for (const effect of effects) {
    for (const text of lists[effect] ?? []) {
      const rule = typeof text === "string" ? parsePermissionRule(text, effect, source) : null;
      if (rule === null) warn(`${source}: permission rule ${JSON.stringify(text).slice(0, 80)} is not Tool or Tool(pattern): ignored`);
      else out.push(rule);
    }
  }
  return out;
}

/**
 * The session's rules: `user` (the config file's, from `userSource`), then
 * the project files' when the workspace is `trusted` (`--trust-workspace`;
 * else `warn` says they were not used).
 */
export async function loadPermissionRules(workspace: string, user: PermissionLists | null, userSource: string, trusted: boolean, warn: (line: string) => void): Promise<PermissionRules> {
  const rules = user === null ? [] : rulesOf(user, userSource, warn);
  for (const file of projectRuleFiles) {
    const lists = await readPermissions(path.join(workspace, file), warn);
    if (lists === null) continue;
    if (trusted) rules.push(...rulesOf(lists, file, warn));
    else warn(`${file}: its permission rules are not used until you trust this workspace (--trust-workspace or KOSONG_TRUST_WORKSPACE=1)`);
  }
  return new PermissionRules(rules, workspace);
}

async function readPermissions(file: string, warn: (line: string) => void): Promise<PermissionLists | null> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return null;
  }
  try {
    const parsed = JSON.parse(text) as { permissions?: unknown };
    const lists = parsed?.permissions;
    if (typeof lists !== "object" || lists === null) return null;
    const pick = (key: PermissionEffect) => {
      const value = (lists as Record<string, unknown>)[key];
      return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : undefined;
    };
    return { allow: pick("allow"), ask: pick("ask"), deny: pick("deny") };
  } catch (error) {
    warn(`${file} is not valid JSON (${(error as Error).message}): its permission rules are not used`);
    return null;
  }
}
