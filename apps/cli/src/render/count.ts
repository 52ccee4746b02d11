/** `1 line`, `2 lines`: a count with its noun in the right number (nouns that take an `s`). */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
