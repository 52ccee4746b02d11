/**
 * The files a shell command writes and reads, as a summary lists them: a
 * file written is the target of a redirection (`>`, `>>`), of `tee`, of
 * `sed -i`, of `touch`, or the destination of `cp` and `mv`; the names in a
 * script the command carries (a heredoc's body, a multi-line quoted
 * argument such as `python -c "…"`) are code, not files the command writes
 * (`f.read`, `self.name`, `django.setup`), and count as files read only when
 * a string literal of the script is one.
 */
import { identifiersOf } from "./identifier-index.js";

/** The files of one shell command: those it writes and those it reads (names as an operand or a script's string literal). */
export interface ShellFiles {
  written: string[];
  read: string[];
}

/** A heredoc start: `<<EOF`, `<<-'EOF'`, `<< "END"`. */
const HEREDOC = /<<-?\s*(['"]?)([\w.-]+)\1/;
/** A string literal of a script that is a whole file name or path. */
const LITERAL = /(['"])([^'"\s]{4,300})\1/g;
/** An operator that ends one simple command. */
const OPERATOR = /^(?:&&|\|\||[;|&\n])$/;
/** A redirection of output, with its target when written in the same word (`>out.txt`). */
const REDIRECT = /^\d?>>?(.*)$/;

/** The files `command` writes and reads (see the module comment); each list deduplicated, in order. */
export function shellFiles(command: string): ShellFiles {
  const { line, scripts } = splitScripts(command);
  const written = new Set<string>();
  const named = new Set<string>();
  let argv: string[] = [];
  const tokens = shellTokens(line);
  for (let i = 0; i <= tokens.length; i++) {
    const token = tokens[i];
    if (token === undefined || OPERATOR.test(token)) {
      for (const target of commandTargets(argv)) addFile(written, target);
      for (const operand of fileOperands(argv)) addFile(named, operand);
      argv = [];
      continue;
    }
    const redirect = REDIRECT.exec(token);
    if (redirect === null) argv.push(unquoted(token));
    else if (redirect[1] !== "") addFile(written, unquoted(redirect[1]!));
    else if (tokens[i + 1] !== undefined && !OPERATOR.test(tokens[i + 1]!)) addFile(written, unquoted(tokens[++i]!));
  }
  const read = new Set([...named].filter((path) => !written.has(path)));
  for (const script of scripts) {
    for (const [, , literal] of script.matchAll(LITERAL)) {
      if (isPath(literal!) && !written.has(literal!)) read.add(literal!);
    }
  }
  return { written: [...written], read: [...read] };
}

/** `command` without the scripts it carries (heredoc bodies, multi-line quoted arguments), and those scripts. */
function splitScripts(command: string): { line: string; scripts: string[] } {
  const scripts: string[] = [];
  const kept: string[] = [];
  const lines = command.split("\n");
  for (let i = 0; i < lines.length; i++) {
    kept.push(lines[i]!);
    const start = HEREDOC.exec(lines[i]!);
    if (start === null) continue;
    const body: string[] = [];
    while (i + 1 < lines.length && lines[i + 1]!.trim() !== start[2]) body.push(lines[++i]!);
    i++;
    scripts.push(body.join("\n"));
  }
  // A quoted argument that spans lines is a script handed to an interpreter.
  const text = kept.join("\n");
  const parts: string[] = [];
  const quote = new QuoteScanner(text);
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const end = quote.end(i);
    if (end < 0) continue;
    const quoted = text.slice(i, end);
    if (quoted.includes("\n")) {
      parts.push(text.slice(from, i), '""');
      scripts.push(quoted);
      from = end;
    }
    i = end - 1;
  }
  parts.push(text.slice(from));
  return { line: parts.join(""), scripts };
}

/** A character that ends a bare word of a command line. */
const WORD_END = /[\s'";|&]/;

/**
 * The tokens of a command line: words (quoted parts joined to what touches them: `'…'`, `"…"` with its escapes) and the
 * operators between commands (`&&`, `||`, `;`, `|`, `&`, a newline). An unclosed quote ends a word and is skipped.
 */
function shellTokens(line: string): string[] {
  const tokens: string[] = [];
  const quote = new QuoteScanner(line);
  let i = 0;
  while (i < line.length) {
    let end = i;
    for (;;) {
      const closed = quote.end(end);
      if (closed >= 0) end = closed;
      else if (end < line.length && !WORD_END.test(line[end]!)) end++;
      else break;
    }
    if (end > i) {
      tokens.push(line.slice(i, end));
      i = end;
      continue;
    }
    const pair = line.slice(i, i + 2);
    if (pair === "&&" || pair === "||") {
      tokens.push(pair);
      i += 2;
    } else {
      if (";|&\n".includes(line[i]!)) tokens.push(line[i]!);
      i++;
    }
  }
  return tokens;
}

/** A character an escape in double quotes does not take (`\` then a line end is no escape). */
const LINE_END = /[\n\r\u2028\u2029]/;

/**
 * Finds where a quoted part of `text` that opens at a given position ends, reading each character once over calls at
 * rising positions: a double-quoted part that does not close stops at the text's end (or at a `\` before a line end),
 * and every `"` it passed was escaped, so a part opening there stops at the same place, which is remembered.
 */
class QuoteScanner {
  #failedUntil = -1;
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  /** The index after the quoted part opening at `at` (`'…'` or `"…"` with its escapes), or -1 when none opens there or it does not close. */
  end(at: number): number {
    const text = this.#text;
    if (text[at] === "'") {
      const close = text.indexOf("'", at + 1);
      return close < 0 ? -1 : close + 1;
    }
    if (text[at] !== '"' || at < this.#failedUntil) return -1;
    let i = at + 1;
    while (i < text.length) {
      if (text[i] === '"') return i + 1;
      if (text[i] !== "\\") i++;
      else if (i + 1 < text.length && !LINE_END.test(text[i + 1]!)) i += 2;
      else break;
    }
    this.#failedUntil = i;
    return -1;
  }
}

/** `word` without its quotes. */
function unquoted(word: string): string {
  return word.replace(/'([^']*)'|"((?:[^"\\]|\\.)*)"/g, "$1$2");
}

/** Commands whose first operand is a script or a pattern, not a file (unless `-e`/`-f` gave it). */
const PATTERN_FIRST = new Set(["sed", "grep", "egrep", "fgrep", "rg", "ag", "awk"]);

/** The operands of one simple command that are whole paths or file names (a `sed` script or a `grep` pattern is not one, even when it looks like a path). */
function fileOperands(argv: readonly string[]): string[] {
  const given = argv.some((word) => word === "-e" || word === "-f" || word === "--expression" || word === "--regexp");
  const script = PATTERN_FIRST.has(argv[0] ?? "") && !given ? argv.slice(1).find((word) => !word.startsWith("-")) : undefined;
  return argv.slice(1).filter((word) => word !== script && !word.startsWith("-") && isPath(word));
}

/** True when `word` is, as a whole, a path or a file name (see {@link identifiersOf}). */
function isPath(word: string): boolean {
  const path = word.replace(/^(?:\.\/)+/, "");
  return identifiersOf(path).some(([id, kind]) => kind === "path" && id === path);
}

/** The files one simple command writes by its arguments: `tee`, `sed -i`, `touch`, and the destination of `cp`/`mv`. */
function commandTargets(argv: readonly string[]): string[] {
  const at = argv.findIndex((word) => !/^\w+=/.test(word) && word !== "sudo");
  const [name, ...rest] = at < 0 ? [] : argv.slice(at);
  const operands = rest.filter((word) => !word.startsWith("-"));
  switch (name) {
    case "tee":
    case "touch":
      return operands;
    case "cp":
    case "mv":
      return operands.length >= 2 ? [operands.at(-1)!] : [];
    case "sed": {
      if (!rest.some((word) => /^-[a-zA-Z]*i/.test(word) || word.startsWith("--in-place"))) return [];
      // The first operand is the script unless `-e` or `-f` gave it.
      const scripted = rest.some((word) => word === "-e" || word === "-f" || word === "--expression");
      const files = rest.filter((word, i) => !word.startsWith("-") && !["-e", "-f", "--expression"].includes(rest[i - 1] ?? ""));
      return scripted ? files : files.slice(1);
    }
    default:
      return [];
  }
}

/** Adds `target` to `files` when it names a file (not a descriptor, not `/dev/null`, not a variable). */
function addFile(files: Set<string>, target: string): void {
  const path = target.replace(/^['"]|['"]$/g, "").replace(/^(?:\.\/)+/, "");
  if (path === "" || path.startsWith("/dev/") || path.startsWith("$") || path.startsWith("&") || /^\d+$/.test(path)) return;
  files.add(path);
}
