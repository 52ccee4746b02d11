/**
 * The conversation inside a Markdown or HTML export: its JSONL, base64 in
 * one HTML comment at the end (base64 holds no `--`, so the comment cannot
 * be closed early; nothing of it renders), so `kosong import` restores an
 * export of any format to the same state.
 */

const start = "<!-- kosong-conversation v1 ";
const end = " -->";

/** The comment holding `jsonl`. */
export function embedConversation(jsonl: string): string {
  return `${start}${Buffer.from(jsonl, "utf8").toString("base64")}${end}\n`;
}

/** The JSONL a Markdown or HTML export holds, or null when `text` holds none. */
export function extractConversation(text: string): string | null {
  const at = text.lastIndexOf(start);
  if (at < 0) return null;
  const stop = text.indexOf(end, at + start.length);
  const payload = text.slice(at + start.length, stop < 0 ? undefined : stop);
  if (stop < 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(payload)) throw new Error("the export's embedded conversation is damaged (not base64)");
  return Buffer.from(payload, "base64").toString("utf8");
}
