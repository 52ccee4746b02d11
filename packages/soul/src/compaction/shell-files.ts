/**
 * The files a shell command writes and reads, as a summary lists them: a
 * file written is the target of a redirection (`>`, `>>`), of `tee`, of
 * `sed -i`, of `touch`, or the destination of `cp` and `mv`; a file read is
 * an operand (not a `sed` script or a `grep` pattern) or the source of an
 * input redirection (`< in.txt`; a redirection is never an operand); the names in a
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
/**
 * A redirection of input, with what follows it in the same word: `<in.txt` (a file read), `<<EOF`/`<<-EOF` (a heredoc's
 * delimiter), `<<<word` (a string), `<&3` (a descriptor). None of them is an operand of the command.
 */
const INPUT = /^\d?(<<<|<<-?|<&|<)(.*)$/;

/** The files `command` writes and reads (see the module comment); each list deduplicated, in order. */
export function shellFiles(command: string): ShellFiles {
  const { line, scripts } = splitScripts(command);
  const written = new Set<string>();
  const named = new Set<string>();
  let argv: string[] = [];
  // The files the command's input redirections read (listed after its operands).
  let inputs: string[] = [];
  const tokens = shellTokens(line);
  for (let i = 0; i <= tokens.length; i++) {
    const token = tokens[i];
    if (token === undefined || OPERATOR.test(token)) {
      for (const target of commandTargets(argv)) addFile(written, target);
      for (const operand of [...fileOperands(argv), ...inputs]) addFile(named, operand);
      argv = [];
      inputs = [];
      continue;
    }
    // The target of a redirection: in the same word, else the next one.
    const target = (attached: string): string | null =>
      attached !== "" ? unquoted(attached) : tokens[i + 1] !== undefined && !OPERATOR.test(tokens[i + 1]!) ? unquoted(tokens[++i]!) : null;
    const redirect = REDIRECT.exec(token);
    const input = redirect === null ? INPUT.exec(token) : null;
    if (redirect !== null) {
      const file = target(redirect[1]!);
      if (file !== null) addFile(written, file);
    } else if (input !== null) {
      const file = target(input[2]!);
      if (file !== null && input[1] === "<" && isPath(file)) inputs.push(file);
    } else argv.push(unquoted(token));
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

/** Commands whose first operand is a script or a pattern, not a file (unless an option in {@link SCRIPT_OPTIONS} gave it). */
const PATTERN_FIRST = new Set(["sed", "grep", "egrep", "fgrep", "rg", "ag", "awk"]);

/** The options of those commands whose next word is the script or pattern (`-f`: a file of them, which is no operand either). */
const SCRIPT_OPTIONS = new Set(["-e", "-f", "--expression", "--regexp"]);

/**
 * The name of one simple command (after `VAR=value` assignments and `sudo`), its operands (its words that are not
 * options; of a command in {@link PATTERN_FIRST}, without its script or pattern: the first operand, or the word after
 * an option in {@link SCRIPT_OPTIONS} when one gave it), and the files of scripts or patterns that `-f` names (read,
 * not written).
 */
function commandOperands(argv: readonly string[]): { name: string | undefined; operands: string[]; scriptFiles: string[] } {
  const at = argv.findIndex((word) => !/^\w+=/.test(word) && word !== "sudo");
  const [name, ...rest] = at < 0 ? [] : argv.slice(at);
  if (!PATTERN_FIRST.has(name ?? "")) return { name, operands: rest.filter((word) => !word.startsWith("-")), scriptFiles: [] };
  const operands = rest.filter((word, i) => !word.startsWith("-") && !SCRIPT_OPTIONS.has(rest[i - 1] ?? ""));
  const scriptFiles = rest.filter((word, i) => rest[i - 1] === "-f" && !word.startsWith("-"));
  return { name, operands: rest.some((word) => SCRIPT_OPTIONS.has(word)) ? operands : operands.slice(1), scriptFiles };
}

/** The files one simple command reads by its arguments that are whole paths or file names (a `sed` script or a `grep` pattern is not one, even when it looks like a path). */
function fileOperands(argv: readonly string[]): string[] {
  const { operands, scriptFiles } = commandOperands(argv);
  return [...scriptFiles, ...operands].filter(isPath);
}

/** True when `word` is, as a whole, a path or a file name (see {@link identifiersOf}). */
function isPath(word: string): boolean {
  const path = word.replace(/^(?:\.\/)+/, "");
  return identifiersOf(path).some(([id, kind]) => kind === "path" && id === path);
}

/** The files one simple command writes by its arguments: `tee`, `sed -i`, `touch`, and the destination of `cp`/`mv`. */
function commandTargets(argv: readonly string[]): string[] {
  const { name, operands } = commandOperands(argv);
  switch (name) {
    case "tee":
    case "touch":
      return operands;
    case "cp":
    case "mv":
      return operands.length >= 2 ? [operands.at(-1)!] : [];
    case "sed":
      return argv.some((word) => /^-[a-zA-Z]*i/.test(word) || word.startsWith("--in-place")) ? operands : [];
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
