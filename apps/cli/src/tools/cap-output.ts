/**
 * Tool outputs are capped before the model sees them, with a marker that
 * says how much was cut, so one huge file or command output cannot flood the
 * context window.
 */

/** The default cap on one tool output, in characters. */
export const defaultOutputCap = 30_000;

/** The default cap on one line of a tool output, in characters. */
export const defaultLineCap = 2_000;

/**
 * `text` cut to at most `maxChars` characters (at a line break when one is
 * near), followed by a marker naming what was left out; unchanged when it
 * fits.
 */
export function capOutput(text: string, maxChars = defaultOutputCap): string {
  if (text.length <= maxChars) return text;
  let cut = text.lastIndexOf("\n", maxChars);
  if (cut < maxChars * 0.8) cut = maxChars;
  const rest = text.slice(cut);
  const lines = rest.split("\n").length - (rest.startsWith("\n") ? 1 : 0);
  return `${text.slice(0, cut)}\n[output truncated: ${rest.length} more characters, ${lines} more lines not shown]`;
}

/** `line` cut to `maxChars` characters with a marker when longer. */
export function capLine(line: string, maxChars = defaultLineCap): string {
  return line.length <= maxChars ? line : `${line.slice(0, maxChars)}… [line truncated: ${line.length - maxChars} more characters]`;
}
