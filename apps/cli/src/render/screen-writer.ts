/**
 * The one writer of a terminal's screen: every escape sequence the
 * interactive mode sends goes through it. It knows what is on the screen
 * besides the scrollback (the prompt being edited, a spinner's line, the
 * status footer on the last row and the scroll region that keeps it there),
 * so that each write leaves the others intact:
 *
 * - scrollback: {@link ScreenWriter.write} (a spinner is cleared before and
 *   drawn again after); a live preview is erased with {@link eraseRowsSequence};
 * - the prompt: {@link ScreenWriter.drawPrompt} draws a laid-out prompt over
 *   the one drawn before, {@link ScreenWriter.leavePrompt} moves under it;
 * - the spinner: one line at the cursor, animated until stopped;
 * - the footer: {@link ScreenWriter.reserveFooter} keeps the last row (a
 *   scroll region without it), redrawn on resize, given back by
 *   {@link ScreenWriter.releaseFooter};
 * - bracketed paste on and off around reading keys.
 *
 * One writer per output stream: {@link ScreenWriter.for}.
 */
import stringWidth from "string-width";
import type { PromptView } from "../modes/interactive/prompt-view.js";

/** The output stream the writer draws on (a TTY's, or a stand-in in tests). */
export interface ScreenStream {
  write(text: string): unknown;
  readonly columns?: number;
  readonly rows?: number;
  readonly isTTY?: boolean;
  on?(event: "resize", listener: () => void): unknown;
  off?(event: "resize", listener: () => void): unknown;
}

const esc = "\u001b";
const save = `${esc}7`;
const restore = `${esc}8`;
const up = (n: number): string => (n > 0 ? `${esc}[${n}A` : "");
const down = (n: number): string => (n > 0 ? `${esc}[${n}B` : "");
const right = (n: number): string => (n > 0 ? `${esc}[${n}C` : "");
const clearLine = `${esc}[2K`;

/**
 * The sequence that moves the cursor back over the last `rows` rows and
 * deletes them (lines deleted, not the screen cleared to its end, so a
 * footer below the scroll region stays).
 */
export function eraseRowsSequence(rows: number): string {
  return `\r${up(rows - 1)}${esc}[${rows}M`;
}

const spinnerFrames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const spinnerIntervalMs = 80;

const writers = new WeakMap<ScreenStream, ScreenWriter>();

/** Writes to one terminal screen. */
export class ScreenWriter {
  /** The prompt's cursor row, counted from its first row, and the rows it takes (as last drawn). */
  #promptRow = 0;
  #promptRows = 1;
  #spinner: { text: string; frame: number; timer: ReturnType<typeof setInterval>; colour: (text: string) => string } | null = null;
  #footer: { text: () => string; rows: number } | null = null;
  readonly #onResize = (): void => {
    // A resize resets the scroll region, and the cursor may now sit on the new last row, where the output
    // would write over the footer: the whole screen scrolls by a line if so (IND keeps the column), and
    // the cursor goes back up into what becomes the region. Nothing of the output is below the cursor, but
    // after the screen grew the old footer row is (where the terminal left it): the rows under the cursor
    // are cleared, so neither it nor streamed text written over part of it stays between output and footer.
    this.out.write(`${save}${esc}[r${restore}${esc}D${up(1)}${save}${down(1)}\r${esc}[J${restore}`);
    this.#setRegion();
  };

  private constructor(private readonly out: ScreenStream) {}

  /** The writer of `out` (made on first use: one per stream). */
  static for(out: ScreenStream): ScreenWriter {
    let writer = writers.get(out);
    if (!writer) {
      writer = new ScreenWriter(out);
      writers.set(out, writer);
    }
    return writer;
  }

  /** Columns of the screen (80 when unknown). */
  get columns(): number {
    return this.out.columns ?? 80;
  }

  /** Rows the scrolling output has: the screen's, less the footer's. */
  get outputRows(): number {
    return Math.max(2, (this.out.rows ?? 24) - (this.#footer ? 1 : 0));
  }

  /** Writes `text` to the scrollback; a spinner goes on under whole lines, and stops before a part of one. */
  write(text: string): void {
    if (this.#spinner !== null && !text.endsWith("\n")) this.stopSpinner();
    if (this.#spinner === null) {
      this.out.write(text);
      return;
    }
    this.out.write(`\r${clearLine}${text}`);
    this.#drawSpinner();
  }

  /** Asks the terminal to mark pastes (`ESC[200~` … `ESC[201~`), or to stop. */
  bracketedPaste(on: boolean): void {
    this.out.write(`${esc}[?2004${on ? "h" : "l"}`);
  }

  /** Draws the prompt over the one drawn before, and puts the cursor where `view` says. */
  drawPrompt(view: PromptView): void {
    const columns = view.columns;
    let text = `\r${up(this.#promptRow)}${esc}[J`;
    view.lines.forEach((line, i) => {
      text += line;
      // A line that fills its last row leaves the cursor waiting to wrap: wrap it now, so every line takes the rows counted.
      if (line && stringWidth(line) % columns === 0) text += ` \r${esc}[K`;
      if (i < view.lines.length - 1) text += "\r\n";
    });
    text += `${up(view.rows - 1 - view.cursorRow)}\r${right(view.cursorColumn)}`;
    this.#promptRow = view.cursorRow;
    this.#promptRows = view.rows;
    this.out.write(text);
  }

  /** Moves under the prompt (writing `suffix` at its end first, e.g. `^C`); the next prompt starts on a new line. */
  leavePrompt(suffix = ""): void {
    this.out.write(`${down(this.#promptRows - 1 - this.#promptRow)}${suffix}\r\n`);
    this.#promptRow = 0;
    this.#promptRows = 1;
  }

  /** Erases the prompt drawn (it is read again later, drawn anew where it was). */
  erasePrompt(): void {
    this.out.write(`\r${up(this.#promptRow)}${esc}[J`);
    this.#promptRow = 0;
    this.#promptRows = 1;
  }

  /** Leaves the prompt and writes `text` under it (the prompt is then drawn again below). */
  showAbovePrompt(text: string): void {
    this.leavePrompt();
    this.out.write(`${text.replace(/\r?\n/g, "\r\n")}\r\n`);
  }

  /** Shows a spinner with `text` on the cursor's line (replacing one shown); `colour` styles its frame. */
  startSpinner(text: string, colour: (text: string) => string = (t) => t): void {
    this.stopSpinner();
    this.out.write(`${esc}[?25l`);
    const timer = setInterval(() => {
      if (this.#spinner === null) return;
      this.#spinner.frame = (this.#spinner.frame + 1) % spinnerFrames.length;
      this.#drawSpinner();
    }, spinnerIntervalMs);
    timer.unref?.();
    this.#spinner = { text, frame: 0, timer, colour };
    this.#drawSpinner();
  }

  /** Changes the running spinner's text (nothing when none runs). */
  setSpinnerText(text: string): void {
    if (this.#spinner === null) return;
    this.#spinner.text = text;
    this.#drawSpinner();
  }

  /** Clears the spinner's line and shows the cursor again. */
  stopSpinner(): void {
    if (this.#spinner === null) return;
    clearInterval(this.#spinner.timer);
    this.#spinner = null;
    this.out.write(`\r${clearLine}${esc}[?25h`);
  }

  /**
   * Keeps the last row for a footer showing `text()` (already safe to show)
   * while the output scrolls above it, and draws it. Only on a terminal of
   * at least 4 rows; elsewhere nothing happens.
   */
  reserveFooter(text: () => string): void {
    if (!this.out.isTTY || (this.out.rows ?? 0) < 4 || this.#footer) return;
    this.#footer = { text, rows: 0 };
    // A line free under the cursor (scrolling when it is on the last row), so the region leaves no text behind.
    this.out.write(`\n${up(1)}`);
    this.#setRegion();
    this.out.on?.("resize", this.#onResize);
  }

  /** Draws the footer again (its figures changed). */
  drawFooter(): void {
    const footer = this.#footer;
    if (!footer) return;
    let line = footer.text();
    while (line && stringWidth(line) > this.columns - 1) line = line.slice(0, -1);
    this.out.write(`${save}${esc}[${footer.rows};1H${clearLine}${line}${esc}[0m${restore}`);
  }

  /** Hands the whole screen over (to an editor): the footer released; the function returned reserves it again. */
  handOver(): () => void {
    const footer = this.#footer;
    this.releaseFooter();
    return () => {
      if (footer) this.reserveFooter(footer.text);
    };
  }

  /** Gives the last row back and clears the footer. */
  releaseFooter(): void {
    const footer = this.#footer;
    if (!footer) return;
    this.#footer = null;
    this.out.off?.("resize", this.#onResize);
    this.out.write(`${save}${esc}[${footer.rows};1H${clearLine}${esc}[r${restore}`);
  }

  #setRegion(): void {
    if (!this.#footer) return;
    this.#footer.rows = this.out.rows ?? 24;
    this.out.write(`${save}${esc}[1;${this.#footer.rows - 1}r${restore}`);
    this.drawFooter();
  }

  #drawSpinner(): void {
    const spinner = this.#spinner;
    if (spinner === null) return;
    this.out.write(`\r${clearLine}${spinner.colour(spinnerFrames[spinner.frame]!)} ${spinner.text}`);
  }
}
