/**
 * The permission rules of a session: the user's (the config file's
 * `permissions`) and, once the user trusts the workspace, the project's
 * (`.kosong/settings.json`, and Claude Code's `.claude/settings.json` and
 * `.claude/settings.local.json`). A call matched by a `deny` rule is refused
 * without asking; one matched by an `ask` rule is asked for as usual; one
 * matched by an `allow` rule only runs without asking. Deny wins over ask,
 * ask over allow.
 */
import { mkdir, realpath } from "node:fs/promises";
import path from "node:path";
import { maxSettingsSize, type ReadSettingsFile, readSettingsFile, type SettingsFileRead } from "../config/settings-file-reads.js";
import { linkOutOf, shownLinkOut } from "../project/link-out-of-workspace.js";
import { editPermissionList } from "./permission-file.js";
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

/** Where a rule is kept: the user's config file, or one of the project's files. */
export type PermissionLevel = "user" | "project";

/** A rule of the session with the file it is kept in. */
export interface SessionPermissionRule extends PermissionRule {
  level: PermissionLevel;
  /** The settings file (absolute path) that holds it: edits go there. */
  file: string;
}

/** The files a session's rules live in, and whether the project's count. */
export interface PermissionRuleFiles {
  /** The workspace, which file patterns and project files are relative to. */
  workspace: string;
  /** The user's config file (made as `config.toml` in kosong's home when there is none). */
  userFile: string;
  /** Whether the workspace is trusted: only then are project rules used, added or removed. */
  projectTrusted: boolean;
  /** Called after a project file changed (so the workspace's trust follows the user's own edit). */
  onProjectChange?: (() => Promise<void>) | undefined;
}

/** A session's rules, editable (each edit saved to the file the rule lives in). */
export class PermissionRules {
  readonly #rules: SessionPermissionRule[];

  constructor(
    rules: readonly SessionPermissionRule[],
    readonly files: PermissionRuleFiles,
  ) {
    this.#rules = [...rules];
  }

  /** The workspace, which file patterns are relative to. */
  get workspace(): string {
    return this.files.workspace;
  }

  /** The rules, in the order they were read (and added). */
  get rules(): readonly SessionPermissionRule[] {
    return this.#rules;
  }

  /**
   * Adds `text` to the `effect` list at `level` (the user's config file, or
   * this project's `.kosong/settings.json`, made if missing; the file's other
   * keys kept) and uses it from now on.
   * @throws Error when `text` is not a rule, a project rule is added to an untrusted workspace, or the file cannot be edited.
   */
  async add(effect: PermissionEffect, text: string, level: PermissionLevel): Promise<SessionPermissionRule> {
    const file = level === "user" ? this.files.userFile : path.join(this.workspace, projectRuleFiles[0]);
    const parsed = parsePermissionRule(text.trim(), effect, level === "user" ? file : projectRuleFiles[0]);
    if (parsed === null) throw new Error(`not a permission rule: ${text} (write Tool or Tool(pattern), e.g. Shell(git status) or WriteFile(src/**))`);
    await this.#mustEdit(level, file);
    const rule: SessionPermissionRule = { ...parsed, level, file };
    await editPermissionList(file, effect, (list) => (list.includes(rule.text) ? [...list] : [...list, rule.text]));
    if (!this.#rules.some((r) => r.file === file && r.effect === effect && r.text === rule.text)) this.#rules.push(rule);
    if (level === "project") await this.files.onProjectChange?.();
    return rule;
  }

  /**
   * Removes `rule` from the file it came from (and from the session).
   * @throws Error when a project rule is removed in an untrusted workspace, or the file cannot be edited.
   */
  async remove(rule: SessionPermissionRule): Promise<void> {
    await this.#mustEdit(rule.level, rule.file);
    await editPermissionList(rule.file, rule.effect, (list) => list.filter((text) => text !== rule.text));
    for (let i = this.#rules.length - 1; i >= 0; i--) {
      const r = this.#rules[i]!;
      if (r.file === rule.file && r.effect === rule.effect && r.text === rule.text) this.#rules.splice(i, 1);
    }
    if (rule.level === "project") await this.files.onProjectChange?.();
  }

  /** Saves `text` as an allow rule of this project (see {@link add}); what "always for this project" at an approval does. */
  async allowForProject(text: string): Promise<void> {
    await this.add("allow", text, "project");
  }

  /**
   * Refuses to edit a project rule file of an untrusted workspace, or one
   * that (or whose folder) links out of the workspace: a cloned
   * `.claude -> ~/.claude` would turn a rule "for this project" into one of
   * another file, and a linked `settings.json` would be read and its
   * content written into the workspace's.
   */
  async #mustEdit(level: PermissionLevel, file: string): Promise<void> {
    if (level !== "project") return;
    if (!this.files.projectTrusted) throw new Error("this workspace is not trusted: its permission rules are not used, added or removed (trust it at start-up, or pass --trust-workspace)");
    await mkdir(path.dirname(file), { recursive: true });
    const out = await linkOutOf(this.workspace, file);
    if (out !== null) throw new Error(`${path.relative(this.workspace, out)} links out of the workspace: project permission rules are not written there`);
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

/** A project file's permission lists (`file` relative to the workspace). */
export interface ProjectRuleList {
  file: string;
  lists: PermissionLists;
}

/**
 * The permission lists of the project's files that have some (a file that
 * is not JSON is named to `warn`), got through `read`. A file reached
 * through a link out of the workspace (its folder, e.g. a cloned
 * `.kosong -> /somewhere`, or the file itself, also one swapped in while it
 * is read) is not the workspace's to bring: it is not read, and `warn` says so.
 */
export async function readProjectRuleLists(workspace: string, warn: (line: string) => void, read: ReadSettingsFile = readSettingsFile): Promise<ProjectRuleList[]> {
  const out: ProjectRuleList[] = [];
  const root = await realpath(workspace).catch(() => path.resolve(workspace));
  for (const file of projectRuleFiles) {
    const absolute = path.join(workspace, file);
    const got = await read(absolute, root);
    if (got.kind === "outside") {
      warn(`${await shownLinkOut(workspace, absolute)} links out of the workspace: the permission rules of ${file} are not the workspace's and are not used`);
      continue;
    }
    const lists = permissionsIn(absolute, got, warn);
    if (lists !== null) out.push({ file, lists });
  }
  return out;
}

/**
 * The session's rules: `user` (the config file's), then the `project`
 * files' when the workspace is trusted (`files.projectTrusted`; else `warn`
 * says they were not used).
 */
export function sessionPermissionRules(user: PermissionLists | null, project: readonly ProjectRuleList[], files: PermissionRuleFiles, warn: (line: string) => void): PermissionRules {
  const rules: SessionPermissionRule[] = user === null ? [] : rulesOf(user, files.userFile, warn).map((rule) => ({ ...rule, level: "user" as const, file: files.userFile }));
  for (const { file, lists } of project) {
    if (files.projectTrusted) rules.push(...rulesOf(lists, file, warn).map((rule) => ({ ...rule, level: "project" as const, file: path.join(files.workspace, file) })));
    else warn(`${file}: its permission rules are not used until you trust this workspace (answer yes at start-up in an interactive session, or --trust-workspace / KOSONG_TRUST_WORKSPACE=1)`);
  }
  return new PermissionRules(rules, files);
}

/** The `permissions` lists of settings file `file` as `got` read it (null without any: a file not there or not readable says nothing). */
function permissionsIn(file: string, got: SettingsFileRead, warn: (line: string) => void): PermissionLists | null {
  if (got.kind === "too-large") warn(`${file} is larger than ${maxSettingsSize}: its permission rules are not used`);
  if (got.kind === "unreadable") warn(`cannot read ${file} (${got.message}): its permission rules are not used`);
  if (got.kind !== "read") return null;
  const json = got.json();
  if (!json.ok) {
    warn(`${file} is not valid JSON (${json.message}): its permission rules are not used`);
    return null;
  }
  const lists = (json.value as { permissions?: unknown } | null)?.permissions;
  if (typeof lists !== "object" || lists === null) return null;
  const pick = (key: PermissionEffect) => {
    const value = (lists as Record<string, unknown>)[key];
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : undefined;
  };
  return { allow: pick("allow"), ask: pick("ask"), deny: pick("deny") };
}
