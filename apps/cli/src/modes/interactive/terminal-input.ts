/**
 * Input from the terminal: a line at a time with readline's line editing
 * and the session's input history (kept in `$KOSONG_HOME/history`), and,
 * while a turn runs, raw key watching so that Ctrl-C (or Esc) aborts it.
 */
import { appendFile, readFile } from "node:fs/promises";
import readline from "node:readline";

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
}

/** Where the interactive mode reads lines from: the terminal, or the demo's scripted typist. */
export interface LineInput {
  /** Reads one line after `prompt`. */
  readLine(prompt: string, options?: ReadLineOptions): Promise<LineResult>;
  /** Calls `onInterrupt` on Ctrl-C or Esc until the returned function is called. */
  watchInterrupt(onInterrupt: () => void): () => void;
  /** Ends the line being read, if any, as the end of input (`eof`). */
  cancel(): void;
}

/** Lines kept in the history file. */
export const historyLimit = 500;

/** The terminal's input. */
export class TerminalInput implements LineInput {
  #history: string[] = [];
  #reading: readline.Interface | null = null;

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

  /** Reads one line after `prompt`. */
  readLine(prompt: string, options: ReadLineOptions = {}): Promise<LineResult> {
    const remember = options.remember ?? true;
    return new Promise((resolve) => {
      const rl = readline.createInterface({
        input: this.input,
        output: this.output,
        terminal: true,
        prompt,
        history: remember ? [...this.#history] : [],
        historySize: historyLimit,
        removeHistoryDuplicates: true,
      });
      let settled = false;
      this.#reading = rl;
      const finish = (result: LineResult): void => {
        if (settled) return;
        settled = true;
        if (this.#reading === rl) this.#reading = null;
        rl.close();
        resolve(result);
      };
      rl.on("line", (text) => {
        if (remember && text.trim()) void this.#remember(text);
        finish({ kind: "line", text });
      });
      rl.on("SIGINT", () => {
        const hadText = rl.line.length > 0;
        if (hadText) this.output.write("^C\n");
        else this.output.write("\n");
        finish({ kind: "interrupt", hadText });
      });
      rl.on("close", () => finish({ kind: "eof" }));
      rl.prompt();
      if (options.initial) rl.write(options.initial);
    });
  }

  /**
   * Watches raw keys until the returned function is called: Ctrl-C or Esc
   * calls `onInterrupt`. Other keys are ignored.
   */
  watchInterrupt(onInterrupt: () => void): () => void {
    const onData = (chunk: Buffer): void => {
      if (chunk.includes(0x03) || (chunk.length === 1 && chunk[0] === 0x1b)) onInterrupt();
    };
    this.input.setRawMode?.(true);
    this.input.on("data", onData);
    this.input.resume();
    return () => {
      this.input.off("data", onData);
      this.input.setRawMode?.(false);
      this.input.pause();
    };
  }

  cancel(): void {
    this.#reading?.close();
  }

  async #remember(text: string): Promise<void> {
    this.#history = [text, ...this.#history.filter((line) => line !== text)].slice(0, historyLimit);
    if (this.historyFile) await appendFile(this.historyFile, `${escapeLine(text)}\n`, { mode: 0o600 }).catch(() => undefined);
  }
}

function escapeLine(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function unescapeLine(text: string): string {
  return text.replace(/\\(\\|n)/g, (_, c: string) => (c === "n" ? "\n" : "\\"));
}
