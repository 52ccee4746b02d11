/** A line cut to the terminal's width, measured in columns (a CJK character or an emoji takes two). */
import stringWidth from "string-width";

/** `text` cut to `width` terminal columns, ending in `…` when cut (never half a character). */
export function cutToWidth(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  let cut = "";
  for (const char of text) {
    if (stringWidth(`${cut}${char}…`) > width) break;
    cut += char;
  }
  return `${cut}…`;
}
