/**
 * The patterns of a workspace's root `.gitignore`, in a documented subset of
 * git's syntax, for the Shell scan (see `workspace-scan.ts`):
 *
 * - blank lines and `#` comments are skipped;
 * - `name` (no `/` but a trailing one) matches an entry of that name in any folder;
 * - a pattern with a `/` inside or at the start is anchored at the root;
 * - a trailing `/` matches folders only;
 * - `*` and `?` match within one path segment, `**` across segments;
 * - negations (`!pattern`) are not supported and skipped: what they would
 *   re-include stays ignored (not journaled, never touched by a restore).
 */

/** Whether the entry `key` (relative to the root, `/`-separated) is ignored; `folder` tells whether it is a folder. */
export type IgnoreTest = (key: string, folder: boolean) => boolean;

/** Only this much of a `.gitignore` is read: the rest is left out (a hostile file cannot make the scan slow). */
export const MAX_GITIGNORE_CHARS = 64 * 1024;

/**
 * The {@link IgnoreTest} of the root `.gitignore` text `text`. Patterns are
 * matched by a table over (pattern position, path position), never by a
 * backtracking regular expression, so a test costs at most the product of
 * the two lengths whatever the pattern.
 */
export function parseGitignore(text: string): IgnoreTest {
  const rules: { tokens: Token[]; anchored: boolean; folderOnly: boolean }[] = [];
  for (const raw of text.slice(0, MAX_GITIGNORE_CHARS).split(/\r?\n/)) {
    let line = raw.trimEnd();
    if (line === "" || line.startsWith("#") || line.startsWith("!")) continue;
    const folderOnly = line.endsWith("/");
    if (folderOnly) line = line.slice(0, -1);
    const anchored = line.includes("/");
    if (line.startsWith("/")) line = line.slice(1);
    if (line === "") continue;
    rules.push({ tokens: tokenize(line), anchored, folderOnly });
  }
  return (key, folder) =>
    rules.some((rule) => {
      if (!folder && rule.folderOnly) return false;
      if (rule.anchored) return matches(rule.tokens, key, 0);
      // Unanchored: the pattern may start at the path's start or after any `/`.
      for (let start = 0; start <= key.length; start = key.indexOf("/", start) + 1) {
        if (matches(rule.tokens, key, start)) return true;
        if (key.indexOf("/", start) === -1) break;
      }
      return false;
    });
}

/** A glob piece: a literal character, `?`, `*` (within a segment), `**` (anything) or `**` then `/` (zero or more whole segments). */
type Token = { kind: "char"; char: string } | { kind: "one" } | { kind: "star" } | { kind: "any" } | { kind: "segments" };

function tokenize(glob: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      const segments = glob[i + 2] === "/";
      tokens.push({ kind: segments ? "segments" : "any" });
      i += segments ? 2 : 1;
    } else if (c === "*") {
      if (tokens.at(-1)?.kind !== "star") tokens.push({ kind: "star" });
    } else if (c === "?") tokens.push({ kind: "one" });
    else tokens.push({ kind: "char", char: c });
  }
  return tokens;
}

/** Whether `tokens` match all of `text` from `from`: a table of reachable (token, position) pairs, filled forwards. */
function matches(tokens: readonly Token[], text: string, from: number): boolean {
  const width = text.length - from + 1;
  // reach[t * width + i]: tokens[0..t) can match text[from..from+i).
  const reach = new Uint8Array((tokens.length + 1) * width);
  reach[0] = 1;
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t]!;
    for (let i = 0; i < width; i++) {
      if (reach[t * width + i] === 0) continue;
      const next = (t + 1) * width;
      const at = from + i;
      switch (token.kind) {
        case "char":
          if (text[at] === token.char) reach[next + i + 1] = 1;
          break;
        case "one":
          if (at < text.length && text[at] !== "/") reach[next + i + 1] = 1;
          break;
        case "star":
          // Zero or more characters within this segment.
          for (let j = i; j < width; j++) {
            reach[next + j] = 1;
            if (from + j >= text.length || text[from + j] === "/") break;
          }
          break;
        case "any":
          for (let j = i; j < width; j++) reach[next + j] = 1;
          break;
        case "segments":
          // Nothing, or anything that ends with a `/`.
          reach[next + i] = 1;
          for (let j = i; j < width - 1; j++) if (text[from + j] === "/") reach[next + j + 1] = 1;
          break;
      }
    }
  }
  return reach[tokens.length * width + width - 1] === 1;
}
