import type { Tokenizer } from "../tokens/index.js";

/**
 * `text` cut to at most `maxTokens` tokens (by `tokenizer`) at a line
 * boundary when the kept part has one, followed by a marker saying how much
 * was cut. Returns `text` itself when it fits. `keepTail` keeps the end of
 * the text as well as its start (useful for logs, whose last lines matter).
 */
export function truncateText(text: string, maxTokens: number, tokenizer: Tokenizer, keepTail = false): string {
  const total = tokenizer.count(text);
  if (total <= maxTokens) return text;
  const marker = (cut: number): string => `\n[... ${cut} tokens cut ...]\n`;
  const room = Math.max(0, maxTokens - tokenizer.count(marker(total)));
  let chars = Math.floor((text.length * room) / total);
  for (;;) {
    const head = keepTail ? cutAtLine(text.slice(0, Math.ceil(chars / 2))) : cutAtLine(text.slice(0, chars));
    const tail = keepTail ? text.slice(text.length - Math.floor(chars / 2)) : "";
    const kept = tokenizer.count(head) + tokenizer.count(tail);
    const result = `${head}${marker(Math.max(0, total - kept))}${tail}`;
    if (tokenizer.count(result) <= maxTokens || chars === 0) return chars === 0 ? marker(total).trim() : result;
    chars = Math.floor(chars * 0.8);
  }
}

/** `text` up to its last line break, when it has one in its second half. */
function cutAtLine(text: string): string {
  const at = text.lastIndexOf("\n");
  return at >= text.length / 2 ? text.slice(0, at) : text;
}
