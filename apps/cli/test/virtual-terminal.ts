/**
 * An emulated terminal for in-process tests of the interactive mode: what
 * the code writes goes through xterm.js's headless emulator (the escape
 * sequences interpreted as a terminal does: cursor moves, erases, scroll
 * regions, wrapping), keys go in as the raw bytes a terminal sends, and a
 * resize changes the emulator and emits `resize` as a TTY stream does.
 */
import { EventEmitter } from "node:events";
import xterm from "@xterm/headless";

const { Terminal } = xterm;

/** Keys as a terminal sends them. */
export const keys = {
  enter: "\r",
  altEnter: "\u001b\r",
  backspace: "\u007f",
  escape: "\u001b",
  tab: "\t",
  up: "\u001b[A",
  down: "\u001b[B",
  left: "\u001b[D",
  right: "\u001b[C",
  home: "\u0001",
  end: "\u0005",
  ctrlC: "\u0003",
  ctrlD: "\u0004",
  ctrlK: "\u000b",
  ctrlO: "\u000f",
  ctrlR: "\u0012",
  ctrlU: "\u0015",
  ctrlW: "\u0017",
  wordLeft: "\u001b[1;5D",
  paste: (text: string) => `\u001b[200~${text}\u001b[201~`,
} as const;

/** The input side: a stream of key bytes with raw mode. */
export class VirtualKeyboard extends EventEmitter {
  rawMode = false;
  paused = true;
  setRawMode(mode: boolean): this {
    this.rawMode = mode;
    return this;
  }
  pause(): this {
    this.paused = true;
    return this;
  }
  resume(): this {
    this.paused = false;
    return this;
  }
}

/** The output side: a TTY-like stream whose writes reach the emulator. */
export class VirtualScreen extends EventEmitter {
  readonly isTTY = true;
  /** Everything written, escape sequences included. */
  raw = "";
  constructor(
    private readonly terminal: InstanceType<typeof Terminal>,
    private readonly pending: Promise<void>[],
  ) {
    super();
  }
  get columns(): number {
    return this.terminal.cols;
  }
  get rows(): number {
    return this.terminal.rows;
  }
  write(text: string): boolean {
    this.raw += text;
    this.pending.push(new Promise((resolve) => this.terminal.write(text, resolve)));
    return true;
  }
}

/** A terminal of `columns` x `rows` with its keyboard and screen. */
export class VirtualTerminal {
  readonly terminal: InstanceType<typeof Terminal>;
  readonly keyboard = new VirtualKeyboard();
  readonly screen: VirtualScreen;
  readonly #pending: Promise<void>[] = [];

  constructor(columns = 40, rows = 10) {
    this.terminal = new Terminal({ cols: columns, rows, allowProposedApi: true, scrollback: 1000 });
    this.screen = new VirtualScreen(this.terminal, this.#pending);
  }

  /** Sends keys (raw bytes), each string as one chunk of input. */
  send(...chunks: string[]): void {
    for (const chunk of chunks) this.keyboard.emit("data", chunk);
  }

  /** Types `text` and presses Enter. */
  line(text: string): void {
    this.send(text, keys.enter);
  }

  /** Resizes the terminal; the screen stream emits `resize`. */
  resize(columns: number, rows: number): void {
    this.terminal.resize(columns, rows);
    this.screen.emit("resize");
  }

  /** Waits until the emulator has taken everything written. */
  async flush(): Promise<void> {
    while (this.#pending.length > 0) await Promise.all(this.#pending.splice(0));
  }

  /** The visible rows, trailing spaces cut. */
  async visible(): Promise<string[]> {
    await this.flush();
    const buffer = this.terminal.buffer.active;
    return Array.from({ length: this.terminal.rows }, (_, i) => buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? "");
  }

  /** Scrollback and screen, trailing empty rows dropped. */
  async all(): Promise<string[]> {
    await this.flush();
    const buffer = this.terminal.buffer.active;
    const lines = Array.from({ length: buffer.length }, (_, i) => buffer.getLine(i)?.translateToString(true) ?? "");
    while (lines.length > 0 && lines.at(-1) === "") lines.pop();
    return lines;
  }

  /** The cursor's row (on the screen) and column. */
  async cursor(): Promise<{ row: number; column: number }> {
    await this.flush();
    const buffer = this.terminal.buffer.active;
    return { row: buffer.cursorY, column: buffer.cursorX };
  }
}
