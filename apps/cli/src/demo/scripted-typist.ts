/**
 * The demo's user: a `LineInput` that types the next line of a script into
 * the interactive mode, at a human pace, with a narration before it.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { LineInput, LineResult, ReadLineOptions, TurnKeys } from "../modes/interactive/terminal-input.js";
import { EditBuffer } from "../modes/interactive/edit-buffer.js";
import type { Style } from "../render/terminal-style.js";

/** One line the typist types: text, or a function of the moment (e.g. a message number). */
export interface TypedLine {
  /** Shown (dimmed) before the line is typed. */
  narration?: string;
  text: string | (() => string);
  /** Typed while the turn this line starts runs (a queued line, handed to the soul as a steer). */
  during?: string;
  /** Pasted after the text: shown collapsed, as the prompt shows a large paste, and sent whole. */
  paste?: string;
}

/** Types lines from a script; ends the input (Ctrl-D) when the script runs out. */
export class ScriptedTypist implements LineInput {
  #next = 0;
  #during: string | null = null;

  constructor(
    private readonly lines: TypedLine[],
    private readonly out: NodeJS.WritableStream,
    private readonly style: Style,
    private readonly pace: { perCharMs: number; pauseMs: number },
  ) {}

  async readLine(prompt: string, _options?: ReadLineOptions): Promise<LineResult> {
    const line = this.lines[this.#next++];
    if (!line) return { kind: "eof" };
    if (line.narration) {
      await sleep(this.pace.pauseMs);
      this.out.write(`\n${this.style.magenta(`── ${line.narration}`)}\n`);
    }
    this.out.write(prompt);
    await sleep(this.pace.pauseMs / 2);
    const text = typeof line.text === "string" ? line.text : line.text();
    this.#during = line.during ?? null;
    for (const char of text) {
      this.out.write(char);
      if (this.pace.perCharMs) await sleep(this.pace.perCharMs);
    }
    if (line.paste !== undefined) {
      const buffer = new EditBuffer();
      buffer.paste(line.paste);
      this.out.write(buffer.text);
    }
    this.out.write("\n");
    return { kind: "line", text: line.paste === undefined ? text : text + line.paste };
  }

  watchTurn(keys: TurnKeys): () => void {
    const during = this.#during;
    this.#during = null;
    if (during === null) return () => undefined;
    const timer = setTimeout(() => keys.line(during), this.pace.pauseMs);
    return () => clearTimeout(timer);
  }

  cancel(): void {
    this.#next = this.lines.length;
  }
}
