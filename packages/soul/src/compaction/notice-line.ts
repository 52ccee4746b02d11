/**
 * Text from a tool or the model written as one line inside a compaction's
 * `<system>` notice (a search hit, an error line of the identifier index):
 * control characters become spaces, a `<system>` tag in any spelling
 * (`</system >`, `< SYSTEM x>`) is written `[system]` so it cannot end the
 * notice early, runs of white space become one space, and a line longer
 * than the limit is cut between characters (never inside a surrogate pair:
 * a lone half is invalid Unicode, which a provider may refuse) with `…`.
 */

/** `text` as one notice-safe line of at most `max` characters (see the module's description). */
export function noticeLine(text: string, max: number): string {
  const line = text
    .toWellFormed()
    .replace(/[\p{Cc}\p{Cf}]+/gu, " ")
    // White space is made single first: the tag's `\s*` then match at most one character each (on a long run of white
    // space after a `<`, the two would try every split of it, a quadratic stall on hostile text).
    .replace(/\s+/g, " ")
    .replace(/<\s?(\/?)\s?(system\b[^<>]*)>/gi, "[$1$2]")
    .trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).replace(/[\uD800-\uDBFF]$/, "")}…`;
}
