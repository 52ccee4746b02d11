/**
 * Text from a model, a tool or a server is shown, never obeyed: before it
 * reaches the terminal, every character a terminal would interpret (C0 and
 * C1 controls, DEL) and every invisible formatting character (bidi
 * overrides and isolates, zero-width characters, tag characters, line and
 * paragraph separators) is replaced by a visible stand-in. Without this a
 * model could write `\r\x1b[2K` and paint over what an approval prompt says.
 * The CLI's own styling is added after, so it stays.
 */

/** Characters made visible: controls, format characters (but the emoji joiner), line and paragraph separators. */
const hidden = /\r\n|[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** The zero-width joiner: it only joins emoji sequences, so it stays. */
const zeroWidthJoiner = "\u200d";

/**
 * `text` with control and invisible formatting characters shown: C0
 * controls and DEL as their Control Pictures (`␛` for ESC, `␍` for CR, `␀`),
 * other characters as `<U+202E>`. Newlines and tabs stay (a CRLF becomes a
 * newline) unless `oneLine`, which shows them too (`␊`, `␉`).
 */
export function visibleControls(text: string, options: { oneLine?: boolean } = {}): string {
  const keepLayout = !options.oneLine;
  return text.replace(hidden, (char) => {
    if (char === "\r\n") return keepLayout ? "\n" : "␍␊";
    if (char === zeroWidthJoiner || (keepLayout && (char === "\n" || char === "\t"))) return char;
    const code = char.codePointAt(0)!;
    if (code < 0x20) return String.fromCodePoint(0x2400 + code);
    if (code === 0x7f) return "␡";
    return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
  });
}

/**
 * `text` on one line for a summary: runs of white space as one space,
 * controls visible, shortened to `max` characters with `…`.
 */
export function oneLine(text: string, max: number): string {
  const line = visibleControls(text.replace(/\s+/g, " ").trim(), { oneLine: true });
  if (line.length <= max) return line;
  // Never half of a surrogate pair (an emoji): a lone half shows as "�".
  const end = /[\uD800-\uDBFF]/.test(line[max - 2]!) ? max - 2 : max - 1;
  return `${line.slice(0, end)}…`;
}
