/**
 * Edits the `permissions` lists of a settings file in place: the user's
 * config file (`config.toml` or `config.json`) or a project's JSON file
 * (`.kosong/settings.json`, `.claude/settings.json`, ...). Everything else in
 * the file is kept: a JSON file's other keys (in their order), a TOML file's
 * text (comments too) outside the one array that changes. A TOML file whose
 * `permissions` are written in a way this edit does not follow (an inline
 * table, dotted keys) is refused rather than rewritten. The file is replaced
 * at once (written beside it, then renamed), and made when missing.
 */
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { replaceFile } from "../files/replace-file.js";
import type { PermissionEffect } from "./permission-rule.js";

/**
 * Replaces the `effect` list of `file`'s `permissions` with `edit(list)`.
 * @throws Error naming the file when it cannot be read, parsed or written, or (TOML) edited safely.
 */
export async function editPermissionList(file: string, effect: PermissionEffect, edit: (list: readonly string[]) => string[]): Promise<void> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? null : Promise.reject(error)));
  const next = file.endsWith(".toml") ? await editToml(file, text ?? "", effect, edit) : editJson(file, text ?? "{}", effect, edit);
  await mkdir(path.dirname(file), { recursive: true });
  await replaceFile(file, next);
}

function editJson(file: string, text: string, effect: PermissionEffect, edit: (list: readonly string[]) => string[]): string {
  let settings: unknown;
  try {
    settings = JSON.parse(text.replace(/^\ufeff/, ""));
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message}): its permissions were not changed`);
  }
  if (!isObject(settings)) throw new Error(`${file} is not a JSON object: its permissions were not changed`);
  const permissions = isObject(settings.permissions) ? settings.permissions : {};
  const list = Array.isArray(permissions[effect]) ? (permissions[effect] as unknown[]).filter((v): v is string => typeof v === "string") : [];
  settings.permissions = { ...permissions, [effect]: edit(list) };
  return `${JSON.stringify(settings, null, 2)}\n`;
}

async function editToml(file: string, withBom: string, effect: PermissionEffect, edit: (list: readonly string[]) => string[]): Promise<string> {
  const toml = await import("smol-toml");
  // A byte order mark (which the config reader allows) is kept, outside what is parsed.
  const bom = withBom.startsWith("\ufeff") ? "\ufeff" : "";
  const text = withBom.slice(bom.length);
  let before: Record<string, unknown>;
  try {
    before = toml.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`${file} is not valid TOML (${(error as Error).message}): its permissions were not changed`);
  }
  const permissions = isObject(before.permissions) ? before.permissions : {};
  const current = Array.isArray(permissions[effect]) ? (permissions[effect] as unknown[]).filter((v): v is string => typeof v === "string") : [];
  const list = edit(current);
  const next = replaceTomlList(text, effect, `[${list.map(tomlString).join(", ")}]`, before.permissions !== undefined);
  // The edit must change exactly that list: anything else means the file is written in a way this edit does not follow.
  const after = next === null ? null : (toml.parse(next) as Record<string, unknown>);
  const expected = { ...before, permissions: { ...permissions, [effect]: list } };
  if (after === null || canonical(after) !== canonical(expected)) {
    throw new Error(`${file}: its permissions are not a plain [permissions] table this command can edit; edit "${effect}" there by hand`);
  }
  return bom + next!;
}

/** `text` with the `effect` array of its `[permissions]` table set to `array` (the table or key added when missing); null when it cannot be found safely. */
function replaceTomlList(text: string, effect: PermissionEffect, array: string, hasPermissions: boolean): string | null {
  const header = /^[ \t]*\[[ \t]*permissions[ \t]*\][ \t]*(?:#.*)?$/m.exec(text);
  if (header === null) {
    if (hasPermissions) return null;
    return `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${text === "" ? "" : "\n"}[permissions]\n${effect} = ${array}\n`;
  }
  const bodyStart = header.index + header[0].length;
  const nextTable = /^[ \t]*\[/m.exec(text.slice(bodyStart));
  const bodyEnd = nextTable === null ? text.length : bodyStart + nextTable.index;
  const key = new RegExp(`^[ \\t]*"?${effect}"?[ \\t]*=[ \\t]*`, "m").exec(text.slice(bodyStart, bodyEnd));
  if (key === null) return `${text.slice(0, bodyStart)}\n${effect} = ${array}${text.slice(bodyStart)}`;
  const valueStart = bodyStart + key.index + key[0].length;
  const valueEnd = arrayEnd(text, valueStart);
  return valueEnd === null ? null : `${text.slice(0, valueStart)}${array}${text.slice(valueEnd)}`;
}

/** The index after the TOML array starting at `start` (strings and comments skipped), or null. */
function arrayEnd(text: string, start: number): number | null {
  if (text[start] !== "[") return null;
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (c === "#") i = text.indexOf("\n", i) === -1 ? text.length : text.indexOf("\n", i);
    else if (c === '"' || c === "'") {
      const triple = text.startsWith(c.repeat(3), i);
      const close = triple ? text.indexOf(c.repeat(3), i + 3) : closingQuote(text, i, c);
      if (close === -1) return null;
      i = close + (triple ? 2 : 0);
    } else if (c === "[") depth++;
    else if (c === "]" && --depth === 0) return i + 1;
  }
  return null;
}

function closingQuote(text: string, open: number, quote: string): number {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === "\\" && quote === '"') i++;
    else if (text[i] === quote) return i;
    else if (text[i] === "\n") return -1;
  }
  return -1;
}

/** A TOML basic string: JSON's escapes are TOML's, and DEL must be escaped too. */
function tomlString(value: string): string {
  return JSON.stringify(value).replace(/\u007f/g, "\\u007F");
}

/** JSON with each object's keys sorted: equal for values equal but for key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (isObject(v) && !(v instanceof Date) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
