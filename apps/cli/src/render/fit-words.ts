/** Pieces of text laid out in rows that fit the terminal, wrapped between pieces, never inside one. */
import stringWidth from "string-width";

/**
 * `pieces` in rows of at most `width` columns (a CJK character or an emoji
 * takes two): each row starts with `indent`, pieces on a row are joined by
 * `gap`. A piece wider than a row gets a row of its own (the terminal wraps
 * it).
 */
export function fitWords(pieces: readonly string[], indent: string, gap: string, width: number): string[] {
  const rows: string[] = [];
  let row = "";
  for (const piece of pieces) {
    const next = row === "" ? `${indent}${piece}` : `${row}${gap}${piece}`;
    if (row !== "" && stringWidth(next) > width) {
      rows.push(row);
      row = `${indent}${piece}`;
    } else row = next;
  }
  if (row !== "") rows.push(row);
  return rows;
}
