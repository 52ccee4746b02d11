/**
 * The front matter of a Markdown file from a workspace or the user's
 * folders (`SKILL.md`, a custom command, an agent file): the `---` block at
 * its top, read as the subset of YAML that Claude Code, kimi-cli and Codex
 * write there: `key: value` lines with plain or quoted values, `|` / `>`
 * blocks of indented lines, inline `[a, b]` lists and `- item` lists.
 * Anything else (nesting, anchors, tags) is ignored, never evaluated. The
 * text is hostile: control and invisible formatting characters are removed,
 * and the front matter is read only within its first {@link maxFrontMatterLines}
 * lines, with at most {@link maxListItems} items per list.
 */

/** A front matter value: a string, or a list of strings. */
export type FrontMatterValue = string | string[];

/** A file split into its front matter fields and its body. */
export interface FrontMatterFile {
  /** The fields, keys lower-cased; values cleaned of control characters. */
  fields: Record<string, FrontMatterValue>;
  /** What follows the front matter (the whole text when there is none), cleaned. */
  body: string;
}

/** Lines of a front matter block read at most: a closing `---` further down is not looked for (the file is all body). */
export const maxFrontMatterLines = 500;

/** Items of one list kept at most (the rest are dropped). */
export const maxListItems = 100;

/** Controls and invisible format characters, but newline and tab. */
const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/** `text` without control or invisible formatting characters (newlines and tabs stay, CRLF becomes a newline). */
export function stripControls(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(controls, "");
}

/** Splits `text` into front matter fields and body; a file without a (closed) front matter is all body. */
export function parseFrontMatter(text: string): FrontMatterFile {
  const clean = stripControls(text);
  const lines = frontMatterLines(clean);
  if (lines === null) return { fields: {}, body: clean };
  return { fields: parseFields(lines.block), body: clean.slice(lines.bodyStart) };
}

/** The string of field `key` (a list's items joined with ", "), or undefined when absent. */
export function textField(fields: Record<string, FrontMatterValue>, key: string): string | undefined {
  const value = fields[key];
  return Array.isArray(value) ? value.join(", ") : value;
}

/** A comma-separated list (also a front-matter string like `Read, Grep`), at most {@link maxListItems} items. */
export function splitList(value: string): string[] {
  return value
    .split(",")
    .map((part) => unquote(part.trim()))
    .filter((part) => part !== "")
    .slice(0, maxListItems);
}

/** `text` on one line of at most `max` characters (runs of white space as one space, `…` when cut). */
export function oneLineOf(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

const fence = /^---[ \t]*$/;

/** The front matter's lines and where the body starts, or null when `text` opens none or does not close it in time. */
function frontMatterLines(text: string): { block: string[]; bodyStart: number } | null {
  let at = 0;
  const block: string[] = [];
  for (let n = 0; n <= maxFrontMatterLines + 1 && at <= text.length; n++) {
    const end = text.indexOf("\n", at);
    const line = text.slice(at, end < 0 ? text.length : end);
    const next = end < 0 ? text.length : end + 1;
    if (n === 0 && !fence.test(line)) return null;
    if (n > 0 && fence.test(line)) return { block, bodyStart: next };
    if (n > 0) block.push(line);
    if (end < 0) return null;
    at = next;
  }
  return null;
}

const fieldLine = /^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*)$/;
const itemLine = /^[ \t]*-[ \t]+(.*)$/;
const blockScalar = /^[|>][-+]?$/;

function parseFields(lines: readonly string[]): Record<string, FrontMatterValue> {
  const fields: Record<string, FrontMatterValue> = {};
  for (let i = 0; i < lines.length; i++) {
    const field = fieldLine.exec(lines[i]!);
    if (!field) continue;
    const key = field[1]!.toLowerCase();
    const raw = field[2]!.trim();
    const indented = (line: string | undefined): boolean => line !== undefined && (/^\s/.test(line) || line === "");
    if (blockScalar.test(raw)) {
      const block: string[] = [];
      while (indented(lines[i + 1])) block.push(lines[++i]!.trim());
      fields[key] = (raw.startsWith(">") ? block.join(" ") : block.join("\n")).trim();
    } else if (raw === "" && itemLine.test(lines[i + 1] ?? "")) {
      const items: string[] = [];
      for (let item = itemLine.exec(lines[i + 1] ?? ""); item; item = itemLine.exec(lines[i + 1] ?? "")) {
        i++;
        if (items.length < maxListItems) items.push(unquote(item[1]!.trim()));
      }
      fields[key] = items;
    } else if (raw.startsWith("[") && raw.endsWith("]")) fields[key] = splitList(raw.slice(1, -1));
    else fields[key] = unquote(raw);
  }
  return fields;
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) return value.slice(1, -1).replace(/\\"/g, '"').replace(/\\n/g, "\n");
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replace(/''/g, "'");
  return value;
}
