/**
 * Input from the terminal, in raw mode with bracketed paste: a prompt of
 * one or more lines (Alt+Enter, Ctrl-J or `\` before Enter start a new
 * line; a paste keeps its lines, a large one shown as `[pasted N lines]`),
 * line editing and the session's input history (kept in
 * `$KOSONG_HOME/history`). While a turn runs, keys are still read: Ctrl-C
 * or Esc is handed on (to abort, or to take back a queued line), and a line
 * typed and entered is handed on to be queued; text typed but not entered
 * when the turn ends is put back on the next prompt.
 */
import { appendFile, readFile } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import stringWidth from "string-width";
import { visibleControls } from "../../render/visible-controls.js";
import { commonStart, type Completion } from "./completer.js";
import { EditBuffer } from "./edit-buffer.js";
import { type Key, KeyReader } from "./key-reader.js";

/** What reading a line gave. */
export type LineResult =
  | { kind: "line"; text: string }
  /** Ctrl-C; `hadText` when the line being edited was not empty. */
  | { kind: "interrupt"; hadText: boolean }
  /** Ctrl-D on an empty line, or the end of input. */
  | { kind: "eof" };

/** Options of {@link TerminalInput.readLine}. */
export interface ReadLineOptions {
  /** Text put on the line to edit (e.g. the message `/edit` rewrites). */
  initial?: string;
  /** Record the line in the input history (default true). */
  remember?: boolean;
  /** What Ctrl-O shows above the prompt (the last tool's whole output), or null for nothing. */
  expand?: () => string | null;
  /** Shift-Tab: switches a mode (plan mode) and says what it is now, shown above the prompt. */
  shiftTab?: () => string;
  /** What Tab completes the word before the cursor with. */
  complete?: (before: string) => Promise<Completion | null>;
}

/** What happens to keys read while a turn runs. */
export interface TurnKeys {
  /** Ctrl-C. */
  interrupt(): void;
  /** Esc; text it returns is put back on the line being typed, to edit (a queued line taken back). */
  escape(): string | undefined;
  /** A line typed and entered (not empty). */
  line(text: string): void;
  /** The text typed so far and not entered (after each key), to show it. */
  typing?(text: string): void;
}

/** Where the interactive mode reads lines from: the terminal, or the demo's scripted typist. */
export interface LineInput {
  /** Reads one line (or several, entered together) after `prompt`. */
  readLine(prompt: string, options?: ReadLineOptions): Promise<LineResult>;
  /** Reads keys for a running turn until the returned function is called. */
  watchTurn(keys: TurnKeys): () => void;
  /** Ends the line being read, if any, as the end of input (`eof`). */
  cancel(): void;
  /** Writes a notice: above the prompt (drawn again under it) while a line is read, else as a line of its own. */
  printAbove?(text: string): void;
}

/** Lines kept in the history file. */
export const historyLimit = 500;

const bracketedPasteOn = "\u001b[?2004h";
const bracketedPasteOff = "\u001b[?2004l";

/** The terminal's input. */
export class TerminalInput implements LineInput {
  #history: string[] = [];
  #cancel: (() => void) | null = null;
  /** Shows a notice above the line being read; null when no line is read. */
  #notice: ((text: string) => void) | null = null;
  /** Text typed during a turn and not entered: the next prompt starts with it. */
  #carried: EditBuffer | null = null;

  constructor(
    private readonly input: NodeJS.ReadStream,
    private readonly output: NodeJS.WriteStream,
    private readonly historyFile: string | null,
  ) {}

  /** Loads the saved history (most recent first). */
  async loadHistory(): Promise<void> {
    if (!this.historyFile) return;
    const text = await readFile(this.historyFile, "utf8").catch(() => "");
    this.#history = text.split("\n").filter(Boolean).map(unescapeLine).reverse().slice(0, historyLimit);
  }

  /** Reads one line (or several, entered together) after `prompt`. */
  readLine(prompt: string, options: ReadLineOptions = {}): Promise<LineResult> {
    const remember = options.remember ?? true;
    // Text carried over from a turn goes to the next prompt, not to an approval's answer or an /edit.
    const carried = remember && options.initial === undefined ? this.#carried : null;
    if (carried) this.#carried = null;
    const buffer = carried ?? new EditBuffer(options.initial);
    const history = remember ? this.#history : [];
    let browsing = -1;
    let draft = "";
    let shownRow = 0;
    let shownRows = 1;
    const columns = () => Math.max(10, this.output.columns ?? 80);
    /** Ctrl-R's search through the history: what is typed, where the match is, and the text before the search. */
    let search: { query: string; at: number; before: string } | null = null;
    const findFrom = (start: number): void => {
      if (search === null) return;
      const query = search.query;
      const at = history.findIndex((line, i) => i >= start && line.includes(query));
      if (at >= 0) {
        search.at = at;
        buffer.set(history[at]!);
      }
    };
    const draw = (): void => {
      const shownPrompt = search === null ? prompt : `(history search: ${visibleControls(search.query, { oneLine: true })})› `;
      const layout = buffer.layout(shownPrompt, columns());
      let text = `\r${shownRow > 0 ? `\u001b[${shownRow}A` : ""}\u001b[J`;
      layout.lines.forEach((line, i) => {
        text += line;
        // A line that fills its last row leaves the cursor waiting to wrap: wrap it now, so every line takes the rows layout() counts.
        if (line && stringWidth(line) % columns() === 0) text += " \r\u001b[K";
        if (i < layout.lines.length - 1) text += "\r\n";
      });
      const up = layout.rows - 1 - layout.cursorRow;
      text += `${up > 0 ? `\u001b[${up}A` : ""}\r${layout.cursorColumn > 0 ? `\u001b[${layout.cursorColumn}C` : ""}`;
      shownRow = layout.cursorRow;
      shownRows = layout.rows;
      this.output.write(text);
    };
    const toEnd = (suffix = ""): void => {
      const down = shownRows - 1 - shownRow;
      this.output.write(`${down > 0 ? `\u001b[${down}B` : ""}${suffix}\r\n`);
    };
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: LineResult): void => {
        settled = true;
        this.#notice = null;
        stop();
        this.#cancel = null;
        resolve(result);
      };
      const onKey = (key: Key): void => {
        if (search !== null) {
          if (key.kind === "text" || key.kind === "paste") {
            search.query += key.text;
            findFrom(search.at);
            return draw();
          }
          if (key.name === "backspace" || key.name === "ctrl-r") {
            if (key.name === "backspace") search.query = search.query.slice(0, -1);
            findFrom(key.name === "ctrl-r" ? search.at + 1 : 0);
            return draw();
          }
          // Esc and Ctrl-C give the text before the search back; any other key keeps the match and goes on.
          if (key.name === "escape" || key.name === "ctrl-c") buffer.set(search.before);
          search = null;
          if (key.name === "escape" || key.name === "ctrl-c") return draw();
        }
        if (key.kind === "key" && key.name === "ctrl-r") {
          search = { query: "", at: 0, before: buffer.submitted() };
          return draw();
        }
        if (key.kind === "text") buffer.insert(key.text);
        else if (key.kind === "paste") buffer.paste(key.text);
        else
          switch (key.name) {
            case "enter": {
              if (buffer.text.slice(0, buffer.cursor).endsWith("\\")) {
                buffer.backspace();
                buffer.insert("\n");
                break;
              }
              toEnd();
              const text = buffer.submitted();
              if (remember && text.trim()) void this.#remember(text);
              return finish({ kind: "line", text });
            }
            case "newline":
              buffer.insert("\n");
              break;
            case "ctrl-c": {
              const hadText = buffer.text.length > 0;
              toEnd(hadText ? "^C" : "");
              return finish({ kind: "interrupt", hadText });
            }
            case "ctrl-d":
              if (!buffer.text) {
                toEnd();
                return finish({ kind: "eof" });
              }
              buffer.delete();
              break;
            case "up":
              if (!buffer.up() && browsing + 1 < history.length) {
                if (browsing < 0) draft = buffer.submitted();
                buffer.set(history[++browsing]!);
              }
              break;
            case "ctrl-o": {
              const shown = options.expand?.();
              if (shown) showAbove(shown);
              break;
            }
            case "shift-tab":
              if (options.shiftTab) showAbove(options.shiftTab());
              break;
            case "tab":
              if (options.complete) void completeWord(options.complete);
              return;
            case "down":
              if (!buffer.down() && browsing >= 0) buffer.set(--browsing < 0 ? draft : history[browsing]!);
              break;
            default:
              edit(buffer, key.name);
          }
        draw();
      };
      /** Writes `text` above the prompt, which is drawn again under it. */
      const showAbove = (text: string): void => {
        toEnd();
        this.output.write(`${text.replace(/\r?\n/g, "\r\n")}\r\n`);
        shownRow = 0;
        shownRows = 1;
      };
      this.#notice = (text) => {
        showAbove(text);
        draw();
      };
      const completeWord = async (completer: (before: string) => Promise<Completion | null>): Promise<void> => {
        const [text, cursor] = [buffer.text, buffer.cursor];
        const completion = await completer(text.slice(0, cursor));
        // Keys typed while the folder was read win over the completion.
        if (!completion || buffer.text !== text || buffer.cursor !== cursor || settled) return;
        const { from, candidates } = completion;
        const only = candidates.length === 1 ? candidates[0]! : null;
        const start = only ?? commonStart(candidates);
        if (only !== null) buffer.replaceBefore(from, only.endsWith("/") ? only : `${only} `);
        else if (start.length > cursor - from) buffer.replaceBefore(from, start);
        else showAbove(candidates.map((c) => visibleControls(c, { oneLine: true })).join("  "));
        draw();
      };
      const stop = this.#listen(onKey);
      this.#cancel = () => {
        toEnd();
        finish({ kind: "eof" });
      };
      draw();
    });
  }

  /**
   * Reads keys while a turn runs, until the returned function is called:
   * Ctrl-C and Esc are handed on; typed text is kept (handed to `typing`
   * to be shown outside the turn's output, in the footer) and handed on when
   * Enter is pressed.
   */
  watchTurn(keys: TurnKeys): () => void {
    const buffer = this.#carried ?? new EditBuffer();
    this.#carried = null;
    const stop = this.#listen((key) => {
      if (key.kind === "text") buffer.insert(key.text);
      else if (key.kind === "paste") buffer.paste(key.text);
      else if (key.name === "ctrl-c") keys.interrupt();
      else if (key.name === "escape") {
        const back = keys.escape();
        if (back !== undefined) buffer.set(buffer.text ? `${back}\n${buffer.text}` : back);
      }
      else if (key.name === "enter" && buffer.text.slice(0, buffer.cursor).endsWith("\\")) {
        buffer.backspace();
        buffer.insert("\n");
      } else if (key.name === "enter") {
        const text = buffer.submitted();
        buffer.set("");
        if (text.trim()) keys.line(text);
      } else if (key.name === "newline") buffer.insert("\n");
      else edit(buffer, key.name);
      keys.typing?.(buffer.text);
    });
    if (buffer.text) keys.typing?.(buffer.text);
    return () => {
      stop();
      if (buffer.text) this.#carried = buffer;
    };
  }

  cancel(): void {
    this.#cancel?.();
  }

  printAbove(text: string): void {
    if (this.#notice !== null) this.#notice(text);
    else this.output.write(`${text}\n`);
  }

  /** Reads keys in raw mode with bracketed paste until the returned function is called. */
  #listen(onKey: (key: Key) => void): () => void {
    const reader = new KeyReader();
    const decoder = new StringDecoder("utf8");
    const onData = (chunk: Buffer | string): void => {
      for (const key of reader.read(typeof chunk === "string" ? chunk : decoder.write(chunk))) onKey(key);
    };
    const onEnd = (): void => onKey({ kind: "key", name: "ctrl-d" });
    this.input.setRawMode?.(true);
    this.output.write(bracketedPasteOn);
    this.input.on("data", onData);
    this.input.on("end", onEnd);
    this.input.resume();
    return () => {
      this.input.off("data", onData);
      this.input.off("end", onEnd);
      this.input.pause();
      this.output.write(bracketedPasteOff);
      this.input.setRawMode?.(false);
    };
  }

  async #remember(text: string): Promise<void> {
    this.#history = [text, ...this.#history.filter((line) => line !== text)].slice(0, historyLimit);
    if (this.historyFile) await appendFile(this.historyFile, `${escapeLine(text)}\n`, { mode: 0o600 }).catch(() => undefined);
  }
}

/** The editing keys both the prompt and the type-ahead of a turn share. */
function edit(buffer: EditBuffer, name: string): void {
  switch (name) {
    case "backspace":
      return buffer.backspace();
    case "delete":
      return buffer.delete();
    case "left":
      return buffer.left();
    case "right":
      return buffer.right();
    case "home":
      return buffer.home();
    case "end":
      return buffer.end();
    case "word-left":
      return buffer.wordLeft();
    case "word-right":
      return buffer.wordRight();
    case "ctrl-u":
      return buffer.killToStart();
    case "ctrl-k":
      return buffer.killToEnd();
    case "ctrl-w":
      return buffer.killWord();
  }
}

function escapeLine(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function unescapeLine(text: string): string {
  return text.replace(/\\(\\|n)/g, (_, c: string) => (c === "n" ? "\n" : "\\"));
}
