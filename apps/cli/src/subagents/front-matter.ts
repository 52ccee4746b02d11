/**
 * The front matter of an agent file: `key: value` lines between `---`
 * lines at the top (the subset of YAML that Claude Code's and kosong's
 * agent files use: plain and quoted strings, inline `[a, b]` lists and
 * `- item` lists). Anything else is ignored, never evaluated.
 */

/** A parsed file: its keys (strings or string lists) and the text after the front matter. */
export interface FrontMatter {
  fields: Record<string, string | string[]>;
  body: string;
}

/** Splits `text` into its front matter and body; a file without front matter is all body. */
export function parseFrontMatter(text: string): FrontMatter {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "---") return { fields: {}, body: text.trim() };
  const end = lines.findIndex((line, i) => i > 0 && line.trim() === "---");
  if (end < 0) return { fields: {}, body: text.trim() };
  const fields: Record<string, string | string[]> = {};
  let listKey: string | null = null;
  for (const line of lines.slice(1, end)) {
    const item = /^\s+-\s+(.*)$/.exec(line) ?? /^-\s+(.*)$/.exec(line);
    if (item && listKey !== null) {
      const list = fields[listKey];
      fields[listKey] = [...(Array.isArray(list) ? list : []), unquote(item[1]!)];
      continue;
    }
    const pair = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!pair) continue;
    const [, key, raw] = pair as unknown as [string, string, string];
    const value = raw.trim();
    listKey = value === "" ? key : null;
    if (value === "") fields[key] = [];
    else if (value.startsWith("[") && value.endsWith("]")) fields[key] = splitList(value.slice(1, -1));
    else fields[key] = unquote(value);
  }
  return { fields, body: lines.slice(end + 1).join("\n").trim() };
}

/** A comma-separated list (also a front-matter string like `Read, Grep`). */
export function splitList(value: string): string[] {
  return value.split(",").map((part) => unquote(part.trim())).filter((part) => part !== "");
}

function unquote(value: string): string {
  const v = value.trim();
  return v.length >= 2 && (v[0] === '"' || v[0] === "'") && v.at(-1) === v[0] ? v.slice(1, -1) : v;
}
