/**
 * The interactive mode in this process, on an emulated terminal: the same
 * code the `kosong` binary runs (`runCli`: the command line parsed, the
 * session opened, the prompt, the turns rendered, the slash commands) with
 * its terminal, environment, directory and signals handed in as a
 * `ProcessIo`. Keys go in as the bytes a terminal sends, what the mode
 * writes goes through xterm.js's headless emulator (tty output: a newline
 * also returns the cursor), and the screen comes out as tmux's
 * `capture-pane` gives it. It answers to the calls of `TmuxTerminal`
 * (`line`, `keys`, `type`, `paste`, `screen`, `visible`, `waitFor`,
 * `after`, `resize`), so a test reads the same in both; what tmux prints
 * when the command ends (`[exit N]`) is printed here too.
 */
import { EventEmitter } from "node:events";
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import xterm from "@xterm/headless";
import type { ProcessIo } from "../../src/process-io.js";
import { runCli } from "../../src/run-cli.js";
import { VirtualKeyboard } from "../virtual-terminal.js";

const { Terminal } = xterm;
type XtermTerminal = InstanceType<typeof Terminal>;

/** tmux's key names (`send-keys`) as the bytes a terminal sends for them. */
const keyBytes: Record<string, string> = {
  Enter: "\r",
  Escape: "\u001b",
  Tab: "\t",
  BTab: "\u001b[Z",
  BSpace: "\u007f",
  Up: "\u001b[A",
  Down: "\u001b[B",
  Right: "\u001b[C",
  Left: "\u001b[D",
  Home: "\u001b[1~",
  End: "\u001b[4~",
  "M-Enter": "\u001b\r",
};

/** The bytes of a tmux key name: a name above, `C-x` (control), or text sent as it is. */
function bytesOf(key: string): string {
  const named = keyBytes[key];
  if (named !== undefined) return named;
  const control = /^C-([a-z])$/.exec(key);
  if (control) return String.fromCharCode(control[1]!.charCodeAt(0) - 96);
  return key;
}

/** A keyboard that is a TTY, as the interactive mode requires of stdin. */
class TtyKeyboard extends VirtualKeyboard {
  readonly isTTY = true;
}

/** A TTY-like stream whose writes reach the emulator at once (the screen read right after shows them). */
class TtyScreen extends EventEmitter {
  readonly isTTY = true;
  constructor(private readonly terminal: XtermTerminal) {
    super();
  }
  get columns(): number {
    return this.terminal.cols;
  }
  get rows(): number {
    return this.terminal.rows;
  }
  write(chunk: string | Uint8Array, encodingOrDone?: unknown, done?: unknown): boolean {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    (this.terminal as unknown as { _core: { writeSync(data: string): void } })._core.writeSync(text);
    const callback = typeof encodingOrDone === "function" ? encodingOrDone : done;
    if (typeof callback === "function") queueMicrotask(() => (callback as () => void)());
    return true;
  }
}

/** Options of {@link KosongTerminal.start}. */
export interface KosongTerminalOptions {
  cwd: string;
  /** The whole environment of the run (as `env -i` gives it to the binary). */
  env: Record<string, string>;
  width?: number;
  height?: number;
}

/** `kosong` running in this process on an emulated terminal. */
export class KosongTerminal {
  readonly #terminal: XtermTerminal;
  readonly #keyboard = new TtyKeyboard();
  readonly #screen: TtyScreen;
  readonly #signals = new EventEmitter();
  /** Keys waiting to be sent, one chunk per call, in order. */
  #sending: Promise<void> = Promise.resolve();
  /** The exit code, once the command ended. */
  readonly exited: Promise<number>;

  private constructor(args: string[], options: KosongTerminalOptions) {
    this.#terminal = new Terminal({ cols: options.width ?? 110, rows: options.height ?? 40, scrollback: 5000, convertEol: true, allowProposedApi: true, logLevel: "off" });
    this.#screen = new TtyScreen(this.#terminal);
    const io: ProcessIo = {
      stdin: this.#keyboard as unknown as NodeJS.ReadStream,
      stdout: this.#screen as unknown as NodeJS.WriteStream,
      stderr: this.#screen as unknown as NodeJS.WritableStream,
      env: { TERM: "xterm-256color", ...options.env },
      cwd: () => options.cwd,
      signals: this.#signals,
    };
    this.exited = runCli([process.execPath, "kosong", ...args], io).then((code) => {
      this.#screen.write(`[exit ${code}]\n`);
      return code;
    });
  }

  /** Starts `kosong args...` in `cwd` with exactly `env` (plus TERM), on a terminal of `width` x `height`. */
  static start(args: string[], options: KosongTerminalOptions): KosongTerminal {
    return new KosongTerminal(args, options);
  }

  /** Sends tmux key names (`Enter`, `C-c`, `C-d`, `Escape`, `Tab`, `BTab`), as one chunk. */
  keys(...keys: string[]): void {
    this.#send(keys.map(bytesOf).join(""));
  }

  /** Types `text` literally. */
  type(text: string): void {
    this.#send(text);
  }

  /** Pastes `text` as tmux's `paste-buffer -p` does: newlines as Enter, bracketed when the program asked for it. */
  paste(text: string): void {
    const body = text.replace(/\n/g, "\r");
    this.#send(this.#terminal.modes.bracketedPasteMode ? `\u001b[200~${body}\u001b[201~` : body);
  }

  /** Types `text` and presses Enter. */
  line(text: string): void {
    this.type(text);
    this.keys("Enter");
  }

  /** Sends a signal to the command (SIGTERM or SIGHUP), as `kill` would. */
  signal(name: "SIGTERM" | "SIGHUP"): void {
    this.#signals.emit(name, name);
  }

  /** The whole screen and its scrollback as plain text, wrapped lines joined (`escapes`: with SGR colour codes). */
  screen(escapes = false): string {
    const buffer = this.#terminal.buffer.active;
    const rows: string[] = [];
    for (let i = 0; i < buffer.length; i++) {
      const line = buffer.getLine(i)!;
      const text = escapes ? sgrLine(line, this.#terminal.cols) : line.translateToString(true);
      if (line.isWrapped && rows.length > 0) rows[rows.length - 1] += text;
      else rows.push(text);
    }
    return `${rows.join("\n")}\n`;
  }

  /** The visible screen only (no scrollback), as plain text. */
  visible(): string {
    const buffer = this.#terminal.buffer.active;
    return `${Array.from({ length: this.#terminal.rows }, (_, i) => buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? "").join("\n")}\n`;
  }

  /** Resizes the terminal (the screen stream emits `resize`, as on SIGWINCH). */
  resize(width: number, height: number): void {
    this.#terminal.resize(width, height);
    this.#screen.emit("resize");
  }

  /** The screen after the last occurrence of `marker` (what a step printed). */
  after(marker: string): string {
    const screen = this.screen();
    const at = screen.lastIndexOf(marker);
    return at < 0 ? "" : screen.slice(at + marker.length);
  }

  /**
   * Waits until the screen (after `from`, when given, else all of it)
   * matches `pattern`; returns that screen. Throws with the screen after
   * `timeoutMs`.
   */
  async waitFor(pattern: RegExp, options: { from?: string; timeoutMs?: number } = {}): Promise<string> {
    const deadline = Date.now() + (options.timeoutMs ?? 20_000);
    await this.#sending;
    for (;;) {
      const screen = options.from === undefined ? this.screen() : this.after(options.from);
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`screen never matched ${pattern}:\n${this.screen()}`);
      await sleep(10);
    }
  }

  /** Ends the command as the terminal closing would (SIGHUP) and waits for it to close its session. */
  async close(): Promise<void> {
    this.signal("SIGHUP");
    await Promise.race([this.exited.catch(() => undefined), sleep(10_000)]);
    this.#terminal.dispose();
  }

  /** Hands `bytes` to the program as one chunk of input, after those sent before, on a later turn of the event loop (as a terminal's bytes arrive). */
  #send(bytes: string): void {
    this.#sending = this.#sending.then(async () => {
      await nextTurn();
      this.#keyboard.emit("data", bytes);
    });
  }
}

/** One buffer line with SGR sequences where its attributes change (as `tmux capture-pane -e`: one sequence per attribute, the colour last). */
function sgrLine(line: NonNullable<ReturnType<XtermTerminal["buffer"]["active"]["getLine"]>>, columns: number): string {
  let out = "";
  let previous = "";
  for (let x = 0; x < columns; x++) {
    const cell = line.getCell(x);
    if (!cell || cell.getWidth() === 0) continue;
    const codes: string[] = [];
    if (cell.isBold()) codes.push("1");
    if (cell.isDim()) codes.push("2");
    if (cell.isItalic()) codes.push("3");
    if (cell.isUnderline()) codes.push("4");
    if (cell.isInverse()) codes.push("7");
    if (cell.isBgPalette()) codes.push(cell.getBgColor() < 8 ? `${40 + cell.getBgColor()}` : cell.getBgColor() < 16 ? `${100 + cell.getBgColor() - 8}` : `48;5;${cell.getBgColor()}`);
    else if (cell.isBgRGB()) codes.push(`48;2;${rgb(cell.getBgColor())}`);
    if (cell.isFgPalette()) codes.push(cell.getFgColor() < 8 ? `${30 + cell.getFgColor()}` : cell.getFgColor() < 16 ? `${90 + cell.getFgColor() - 8}` : `38;5;${cell.getFgColor()}`);
    else if (cell.isFgRGB()) codes.push(`38;2;${rgb(cell.getFgColor())}`);
    const key = codes.join(";");
    if (key !== previous) {
      if (previous !== "") out += "\u001b[0m";
      for (const code of codes) out += `\u001b[${code}m`;
      previous = key;
    }
    out += cell.getChars() || " ";
  }
  if (previous !== "") out += "\u001b[0m";
  return out.replace(/ +$/, "");
}

function rgb(color: number): string {
  return `${(color >> 16) & 0xff};${(color >> 8) & 0xff};${color & 0xff}`;
}
