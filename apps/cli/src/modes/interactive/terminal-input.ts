/**
 * Input from the terminal, in raw mode with bracketed paste: a prompt of
 * one or more lines (Alt+Enter, Ctrl-J or `\` before Enter start a new
 * line; a paste keeps its lines, a large one shown as `[pasted N lines]`),
 * line editing and the session's input history (kept in
 * `$KOSONG_HOME/history`). While a turn runs, keys are still read: Ctrl-C
 * or Esc is handed on (to abort, or to take back a queued line), Ctrl-O
 * (to expand or collapse the children's blocks), and a line
 * typed and entered is handed on to be queued; text typed but not entered
 * when the turn ends is put back on the next prompt.
 */
import { appendFile, readFile } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { type ScreenStream, ScreenWriter } from "../../render/screen-writer.js";
import type { Completion } from "./completer.js";
import { EditBuffer } from "./edit-buffer.js";
import { type Key, KeyReader } from "./key-reader.js";
import { applyCompletion, initialPrompt, type PromptEffect, promptReducer } from "./prompt-state.js";
import { promptView } from "./prompt-view.js";
import { takenBack, typeAheadReducer } from "./type-ahead-state.js";

/** What reading a line gave. */
export type LineResult =
  | { kind: "line"; text: string }
  /** Ctrl-C; `hadText` when the line being edited was not empty. */
  | { kind: "interrupt"; hadText: boolean }
  /** Ctrl-D on an empty line, or the end of input. */
  | { kind: "eof" }
  /** Ended by {@link ReadLineOptions.preempt} (the text typed is kept for the next prompt). */
  | { kind: "preempted" };

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
  /**
   * Called with a function that ends the read as `preempted` (something
   * must ask the user first: a background agent's approval), the text typed
   * so far kept for the next prompt; returns the function that stops it.
   */
  preempt?: (end: () => void) => () => void;
}

/** What happens to keys read while a turn runs. */
export interface TurnKeys {
  /** Ctrl-C. */
  interrupt(): void;
  /** Esc; text it returns is put back on the line being typed, to edit (a queued line taken back). */
  escape(): string | undefined;
  /** Ctrl-O: expands or collapses the running children's blocks. */
  expand?(): void;
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

/** The streams {@link TerminalInput} reads keys from and draws on. */
export type KeyStream = Pick<NodeJS.ReadStream, "on" | "off" | "pause" | "resume"> & { setRawMode?: (mode: boolean) => unknown };

/** The terminal's input. */
export class TerminalInput implements LineInput {
  #history: string[] = [];
  #cancel: (() => void) | null = null;
  /** Shows a notice above the line being read; null when no line is read. */
  #notice: ((text: string) => void) | null = null;
  /** Text typed during a turn and not entered: the next prompt starts with it. */
  #carried: EditBuffer | null = null;
  readonly #screen: ScreenWriter;

  constructor(
    private readonly input: KeyStream,
    output: ScreenStream,
    private readonly historyFile: string | null,
  ) {
    this.#screen = ScreenWriter.for(output);
  }

  /** Whether a line is being read: a prompt is up, waiting for the user (no turn running). */
  get reading(): boolean {
    return this.#cancel !== null;
  }

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
    let state = initialPrompt(carried ?? new EditBuffer(options.initial), remember ? this.#history : []);
    const screen = this.#screen;
    const draw = (): void => screen.drawPrompt(promptView(state, prompt, screen.columns));
    return new Promise((resolve) => {
      let settled = false;
      let unpreempt: (() => void) | undefined;
      const finish = (result: LineResult, suffix = ""): void => {
        settled = true;
        unpreempt?.();
        this.#notice = null;
        // A preempted prompt goes away (it comes back, with its text, after what preempted it).
        if (result.kind === "preempted") screen.erasePrompt();
        else screen.leavePrompt(suffix);
        stop();
        this.#cancel = null;
        resolve(result);
      };
      const act = (effects: readonly PromptEffect[]): void => {
        for (const effect of effects) {
          if (effect.kind === "submit") {
            if (remember && effect.text.trim()) void this.#remember(effect.text);
            return finish({ kind: "line", text: effect.text });
          }
          if (effect.kind === "interrupt") return finish({ kind: "interrupt", hadText: effect.hadText }, effect.hadText ? "^C" : "");
          if (effect.kind === "eof") return finish({ kind: "eof" });
          if (effect.kind === "complete") return void complete(effect.before);
          const shown = effect.kind === "expand" ? options.expand?.() : effect.text;
          if (shown) screen.showAbovePrompt(shown);
        }
        draw();
      };
      const complete = async (before: string): Promise<void> => {
        if (!options.complete) return;
        const asked = state;
        const completion = await options.complete(before);
        const step = settled ? null : applyCompletion(state, asked, completion);
        if (step === null) return;
        state = step.state;
        act(step.effects);
      };
      const stop = this.#listen((key) => {
        if (key.kind === "key" && key.name === "shift-tab") {
          if (options.shiftTab) screen.showAbovePrompt(options.shiftTab());
          return draw();
        }
        const step = promptReducer(state, key);
        state = step.state;
        act(step.effects);
      });
      this.#cancel = () => finish({ kind: "eof" });
      unpreempt = options.preempt?.(() => {
        if (settled) return;
        if (state.buffer.text) this.#carried = state.buffer;
        finish({ kind: "preempted" });
      });
      if (settled) return unpreempt?.();
      this.#notice = (text) => {
        screen.showAbovePrompt(text);
        draw();
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
    let buffer = this.#carried ?? new EditBuffer();
    this.#carried = null;
    const stop = this.#listen((key) => {
      const step = typeAheadReducer(buffer, key);
      buffer = step.state;
      for (const effect of step.effects) {
        if (effect.kind === "interrupt") keys.interrupt();
        else if (effect.kind === "escape") buffer = takenBack(buffer, keys.escape());
        else if (effect.kind === "expand") keys.expand?.();
        else keys.line(effect.text);
      }
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
    else this.#screen.write(`${text}\n`);
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
    this.#screen.bracketedPaste(true);
    this.input.on("data", onData);
    this.input.on("end", onEnd);
    this.input.resume();
    return () => {
      this.input.off("data", onData);
      this.input.off("end", onEnd);
      this.input.pause();
      this.#screen.bracketedPaste(false);
      this.input.setRawMode?.(false);
    };
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
