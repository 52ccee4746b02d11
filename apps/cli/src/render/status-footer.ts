/**
 * The status footer of a running turn: one line kept on the terminal's last
 * row while the turn's output scrolls above it (a scroll region that leaves
 * that row out), redrawn when its figures change and when the terminal is
 * resized, and cleared when the turn ends. Only on a terminal; elsewhere it
 * does nothing. The text must already be safe to show.
 */
import stringWidth from "string-width";

const save = "\u001b7";
const restore = "\u001b8";

/** A footer on `out`'s last row. */
export class StatusFooter {
  #on = false;
  #rows = 0;
  readonly #onResize = (): void => {
    // A resize resets the scroll region, and the cursor may now sit on the new last row, where the output
    // would write over the footer: the whole screen scrolls by a line if so (IND keeps the column), and
    // the cursor goes back up into what becomes the region.
    this.out.write(`${save}\u001b[r${restore}\u001bD\u001b[1A`);
    this.#setRegion();
  };

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly text: () => string,
  ) {}

  /** Rows the turn's output has (the screen's, less the footer's). */
  get outputRows(): number {
    return Math.max(2, (this.out.rows ?? 24) - (this.#on ? 1 : 0));
  }

  /** Keeps the last row for the footer and draws it. */
  start(): void {
    if (!this.out.isTTY || (this.out.rows ?? 0) < 4) return;
    this.#on = true;
    // A line free under the cursor (scrolling when it is on the last row), so the region leaves no text behind.
    this.out.write("\n\u001b[1A");
    this.#setRegion();
    this.out.on("resize", this.#onResize);
  }

  /** Draws the footer again (its figures changed). */
  draw(): void {
    if (!this.#on) return;
    const columns = this.out.columns ?? 80;
    let line = this.text();
    while (line && stringWidth(line) > columns - 1) line = line.slice(0, -1);
    this.out.write(`${save}\u001b[${this.#rows};1H\u001b[2K${line}\u001b[0m${restore}`);
  }

  /** Gives the last row back and clears the footer. */
  stop(): void {
    if (!this.#on) return;
    this.#on = false;
    this.out.off("resize", this.#onResize);
    this.out.write(`${save}\u001b[${this.#rows};1H\u001b[2K\u001b[r${restore}`);
  }

  #setRegion(): void {
    this.#rows = this.out.rows ?? 24;
    this.out.write(`${save}\u001b[1;${this.#rows - 1}r${restore}`);
    this.draw();
  }
}
