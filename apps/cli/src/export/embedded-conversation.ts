/**
 * The conversation inside a Markdown or HTML export: its JSONL, base64 in
 * one HTML comment at the end (base64 holds no `--`, so the comment cannot
 * be closed early; nothing of it renders), so `kosong import` restores an
 * export of any format to the same state. The session's children follow in
 * a second comment (`kosong-agents`).
 */

const conversation = "<!-- kosong-conversation v1 ";
const agents = "<!-- kosong-agents v1 ";
const end = " -->";

/** The comment holding `jsonl`. */
export function embedConversation(jsonl: string): string {
  return embed(conversation, jsonl);
}

/** The comment holding the children's JSON (`childrenToJson`), after the conversation's. */
export function embedChildren(json: string): string {
  return embed(agents, json);
}

/** The JSONL a Markdown or HTML export holds, or null when `text` holds none. */
export function extractConversation(text: string): string | null {
  return extract(text, conversation, "conversation");
}

/** The children's JSON a Markdown or HTML export holds, or null when it holds none. */
export function extractChildren(text: string): string | null {
  return extract(text, agents, "agents");
}

function embed(start: string, text: string): string {
  return `${start}${Buffer.from(text, "utf8").toString("base64")}${end}\n`;
}

function extract(text: string, start: string, what: string): string | null {
  const at = text.lastIndexOf(start);
  if (at < 0) return null;
  const stop = text.indexOf(end, at + start.length);
  const payload = text.slice(at + start.length, stop < 0 ? undefined : stop);
  if (stop < 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(payload)) throw new Error(`the export's embedded ${what} is damaged (not base64)`);
  return Buffer.from(payload, "base64").toString("utf8");
}
