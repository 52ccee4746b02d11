/**
 * `.gitignore` files as git reads them, for the Shell scan (see
 * `workspace-scan.ts`): each folder's `.gitignore` applies to what is under
 * it, a deeper file's patterns over a higher one's, and in a file the last
 * pattern that matches decides. The syntax is git's (gitignore(5)):
 *
 * - blank lines and `#` comments are skipped; trailing spaces are dropped
 *   unless escaped (`\ `); a backslash makes the next character literal
 *   (`\#`, `\!`, `\*`);
 * - `!pattern` re-includes what an earlier pattern (or a higher file)
 *   excluded, except under an excluded folder: the scan does not enter it,
 *   as git does not;
 * - a pattern with no `/` but a trailing one matches an entry's name at any
 *   depth; one with a `/` at its start or inside is matched against the path
 *   from the `.gitignore`'s folder; a trailing `/` matches folders only;
 * - `*` and `?` match within one path segment, `[a-z]`, `[!a-z]` and
 *   `[^a-z]` one character of a set; `**` as a whole segment (first and
 *   followed by a slash, last after one, or between two) matches any number
 *   of segments, and elsewhere is a plain `*`.
 *
 * Not read: `.git/info/exclude`, `core.excludesFile`, and the POSIX classes
 * in brackets (`[[:alpha:]]`: such a pattern matches nothing). A
 * `.gitignore` that is a symlink is not read (git does not follow it either).
 *
 * A hostile `.gitignore` cannot make a scan slow: only its first
 * {@link MAX_GITIGNORE_BYTES} are read, patterns are matched by a table over
 * (pattern position, path position), never by a backtracking regular
 * expression, and a {@link GitignoreMatcher} stops with
 * {@link GitignoreTooCostlyError} past a budget of table steps (a cell of
 * the table costs a step per token, and a bracket set one per range in it).
 */
import { WorkspaceError } from "./workspace-error.js";

/** Only this much of each `.gitignore` is read: the rest is left out. */
export const MAX_GITIGNORE_BYTES = 64 * 1024;

/** The table steps a {@link GitignoreMatcher} may take by default (well under a second). */
export const MAX_GITIGNORE_STEPS = 20_000_000;

/** One pattern of a `.gitignore` in the folder `base` (a workspace key, "" for the root). */
export interface GitignoreRule {
  readonly base: string;
  readonly negated: boolean;
  /** Matched against the path from `base` (else against the entry's name). */
  readonly anchored: boolean;
  readonly folderOnly: boolean;
  readonly tokens: readonly Token[];
}

/** Thrown by a {@link GitignoreMatcher} past its budget: the patterns cost too much to match against this tree. */
export class GitignoreTooCostlyError extends WorkspaceError {
  static override readonly brand: string = "@kosong/workspace.error.GitignoreTooCostlyError";

  constructor(readonly steps: number) {
    super(`the .gitignore patterns cost more than ${steps} steps to match against the workspace's paths`);
  }
}

/** The rules of the `.gitignore` text `text` of the folder `base`, in order. */
export function parseGitignore(text: string, base = ""): GitignoreRule[] {
  const rules: GitignoreRule[] = [];
  for (let line of text.slice(0, MAX_GITIGNORE_BYTES).split(/\r?\n/)) {
    if (line === "" || line.startsWith("#")) continue;
    while (line.endsWith(" ") && !line.endsWith("\\ ")) line = line.slice(0, -1);
    const negated = line.startsWith("!");
    if (negated) line = line.slice(1);
    const folderOnly = line.endsWith("/") && !line.endsWith("\\/");
    if (folderOnly) line = line.slice(0, -1);
    const anchored = line.includes("/");
    if (line.startsWith("/")) line = line.slice(1);
    if (line === "") continue;
    const tokens = tokenize(line);
    if (tokens !== null) rules.push({ base, negated, anchored, folderOnly, tokens });
  }
  return rules;
}

/** Tells whether entries are ignored, within a budget of table steps shared by all its calls. */
export class GitignoreMatcher {
  #left: number;

  constructor(readonly maxSteps: number = MAX_GITIGNORE_STEPS) {
    this.#left = maxSteps;
  }

  /**
   * Whether the entry `key` (relative to the workspace, `/`-separated; a
   * folder when `folder`) is ignored by `rules` (those of its folder and the
   * folders above it, the root's first). Throws
   * {@link GitignoreTooCostlyError} past the budget.
   */
  ignored(rules: readonly GitignoreRule[], key: string, folder: boolean): boolean {
    const name = key.slice(key.lastIndexOf("/") + 1);
    for (let r = rules.length - 1; r >= 0; r--) {
      const rule = rules[r]!;
      if (rule.folderOnly && !folder) continue;
      const text = rule.anchored ? (rule.base === "" ? key : key.slice(rule.base.length + 1)) : name;
      if (this.#matches(rule.tokens, text)) return !rule.negated;
    }
    return false;
  }

  /** Whether `tokens` match all of `text`: a table of reachable (token, position) pairs, filled forwards. */
  #matches(tokens: readonly Token[], text: string): boolean {
    const width = text.length + 1;
    // Each cell of the table costs a step per token, and a bracket set a step per range it holds (its inner loop).
    this.#left -= tokens.reduce((steps, token) => steps + (token.kind === "class" ? token.ranges.length : 1), 1) * width;
    if (this.#left < 0) throw new GitignoreTooCostlyError(this.maxSteps);
    // reach[t * width + i]: tokens[0..t) can match text[0..i).
    const reach = new Uint8Array((tokens.length + 1) * width);
    reach[0] = 1;
    for (let t = 0; t < tokens.length; t++) {
      const token = tokens[t]!;
      const here = t * width;
      const next = here + width;
      let any = false;
      // Set once a reachable cell is seen, for the tokens that stretch over what follows it: one pass per token (never a pass per cell).
      let carry = false;
      for (let i = 0; i < width; i++) {
        const reached = reach[here + i] === 1;
        any ||= reached;
        switch (token.kind) {
          case "char":
            if (reached && text[i] === token.char) reach[next + i + 1] = 1;
            break;
          case "one":
            if (reached && i < text.length && text[i] !== "/") reach[next + i + 1] = 1;
            break;
          case "class":
            if (reached && i < text.length && text[i] !== "/" && inClass(token, text.charCodeAt(i))) reach[next + i + 1] = 1;
            break;
          case "star":
            // Zero or more characters within this segment.
            carry ||= reached;
            if (carry) reach[next + i] = 1;
            if (i >= text.length || text[i] === "/") carry = false;
            break;
          case "any":
            carry ||= reached;
            if (carry) reach[next + i] = 1;
            break;
          case "segments":
            // Nothing, or anything that ends with a `/`.
            carry ||= reached;
            if (reached) reach[next + i] = 1;
            if (carry && i < width - 1 && text[i] === "/") reach[next + i + 1] = 1;
            break;
        }
      }
      if (!any) return false;
    }
    return reach[tokens.length * width + width - 1] === 1;
  }
}

/**
 * A glob piece: a literal character, `?`, a bracket set, `*` (within a
 * segment), `**` at the end (anything) or `**` then `/` (zero or more whole
 * segments).
 */
type Token =
  | { kind: "char"; char: string }
  | { kind: "one" }
  | { kind: "class"; negated: boolean; ranges: [number, number][] }
  | { kind: "star" }
  | { kind: "any" }
  | { kind: "segments" };

/** The tokens of `glob`, or null when it can match nothing (an unclosed `[`, a POSIX class, a trailing `\`). */
function tokenize(glob: string): Token[] | null {
  const tokens: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "\\") {
      if (i + 1 === glob.length) return null;
      tokens.push({ kind: "char", char: glob[++i]! });
    } else if (c === "*") {
      let end = i;
      while (glob[end + 1] === "*") end++;
      const atSegmentStart = i === 0 || glob[i - 1] === "/";
      if (end > i && atSegmentStart && (end + 1 === glob.length || glob[end + 1] === "/")) {
        const segments = end + 1 < glob.length;
        tokens.push({ kind: segments ? "segments" : "any" });
        i = segments ? end + 1 : end;
      } else {
        if (tokens.at(-1)?.kind !== "star") tokens.push({ kind: "star" });
        i = end;
      }
    } else if (c === "?") tokens.push({ kind: "one" });
    else if (c === "[") {
      const set = bracket(glob, i);
      if (set === null) return null;
      tokens.push(set.token);
      i = set.end;
    } else tokens.push({ kind: "char", char: c });
  }
  return tokens;
}

/** The bracket set opening at `glob[open]` and the index of its `]`, or null when it is unclosed or uses a POSIX class. */
function bracket(glob: string, open: number): { token: Token; end: number } | null {
  let i = open + 1;
  const negated = glob[i] === "!" || glob[i] === "^";
  if (negated) i++;
  const ranges: [number, number][] = [];
  for (let first = true; i < glob.length; first = false) {
    let c = glob[i]!;
    if (c === "]" && !first) return { token: { kind: "class", negated, ranges }, end: i };
    if (c === "[" && glob[i + 1] === ":") return null;
    if (c === "\\" && i + 1 < glob.length) c = glob[++i]!;
    let high = c;
    if (glob[i + 1] === "-" && i + 2 < glob.length && glob[i + 2] !== "]") {
      high = glob[i + 2] === "\\" && i + 3 < glob.length ? glob[i + 3]! : glob[i + 2]!;
      i += glob[i + 2] === "\\" ? 3 : 2;
    }
    ranges.push([c.charCodeAt(0), high.charCodeAt(0)]);
    i++;
  }
  return null;
}

function inClass(token: Extract<Token, { kind: "class" }>, code: number): boolean {
  const inside = token.ranges.some(([low, high]) => code >= low && code <= high);
  return inside !== token.negated;
}
