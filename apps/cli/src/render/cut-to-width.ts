/** A line cut to the terminal's width, measured in columns (a CJK character or an emoji takes two). */
import stringWidth from "string-width";

/** `text` cut to `width` terminal columns, ending in `…` when cut (never half a character). */
export function cutToWidth(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  const chars = Array.from(text);
  const fits = (count: number) => stringWidth(`${chars.slice(0, count).join("")}…`) <= width;
  // The longest start that fits, found by doubling then halving: measuring each longer start in turn takes time growing
  // with the square of a line's zero-width characters (a tool's output of 10,000 U+200B froze the terminal for seconds).
  let [low, high] = [0, Math.min(chars.length, Math.max(1, width))];
  while (high < chars.length && fits(high)) [low, high] = [high, Math.min(chars.length, high * 2)];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return `${chars.slice(0, low).join("")}…`;
}
