/**
 * The front matter of a Markdown prompt file (`SKILL.md`, a custom command):
 * the `---` block at its top, read as flat `key: value` lines (a quoted
 * value, or a `|` / `>` block of indented lines), as Claude Code, kimi-cli
 * and Codex write them. Anything else in it (lists, nesting) is ignored.
 * The text comes from a workspace, so it is cleaned before use.
 */

/** A file split into its front matter fields and its body. */
export interface FrontMatterFile {
  /** The flat fields, keys lower-cased; values cleaned of control characters. */
  fields: Record<string, string>;
  /** What follows the front matter (the whole text when there is none), cleaned. */
  body: string;
}

/** Controls and invisible format characters, but newline and tab. */
const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/** `text` without control or invisible formatting characters (newlines and tabs stay, CRLF becomes a newline). */
export function stripControls(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(controls, "");
}

/** Splits `text` into front matter fields and body. */
export function parseFrontMatter(text: string): FrontMatterFile {
  const clean = stripControls(text);
  const match = /^---[ \t]*\n([\s\S]*?)\n---[ \t]*(?:\n|$)/.exec(clean);
  if (!match) return { fields: {}, body: clean };
  return { fields: parseFields(match[1]!), body: clean.slice(match[0].length) };
}

function parseFields(block: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const lines = block.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const field = /^([A-Za-z][\w-]*):[ \t]*(.*)$/.exec(lines[i]!);
    if (!field) continue;
    const key = field[1]!.toLowerCase();
    const raw = field[2]!.trim();
    if (raw === "|" || raw === ">" || /^[|>][-+]?$/.test(raw)) {
      const block: string[] = [];
      while (i + 1 < lines.length && (/^\s/.test(lines[i + 1]!) || lines[i + 1] === "")) block.push(lines[++i]!.trim());
      fields[key] = (raw.startsWith(">") ? block.join(" ") : block.join("\n")).trim();
    } else fields[key] = unquote(raw);
  }
  return fields;
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) return value.slice(1, -1).replace(/\\"/g, '"').replace(/\\n/g, "\n");
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replace(/''/g, "'");
  return value;
}

/** `text` on one line of at most `max` characters (runs of white space as one space, `…` when cut). */
export function oneLineOf(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
