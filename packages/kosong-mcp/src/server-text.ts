/**
 * Text from an MCP server is hostile: it may carry terminal escapes and
 * other control characters, and it may be huge. These helpers make it
 * printable and bounded before a model or a terminal sees it.
 */

/** C0 controls except tab and newline, DEL, and C1 controls. */
const controlChars = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * `text` with every control character except tab and newline written as a
 * visible escape (`\x1b`, `\r`, `\x00`), so it cannot move a cursor, clear a
 * screen or hide text on a terminal.
 */
export function visibleText(text: string): string {
  return text.replace(controlChars, (c) => (c === "\r" ? "\\r" : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`));
}

/** {@link visibleText} on one line: newlines and tabs become spaces too. */
export function visibleLine(text: string): string {
  return visibleText(text).replace(/[\n\t]+/g, " ");
}

/**
 * `text` cut to `maxChars` characters with a marker saying how much was
 * left out; unchanged when it fits. Never cuts a surrogate pair in half.
 */
export function capText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let cut = maxChars;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${text.slice(0, cut)}\n[output truncated: ${text.length - cut} more characters not shown]`;
}
