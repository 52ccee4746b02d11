/**
 * The text of the prompt being edited: several lines, a cursor, and pastes.
 * A paste of many lines (or a very long one) is kept whole and shown as one
 * marker, `[pasted 120 lines]`; {@link EditBuffer.submitted} puts the pasted
 * text back in its place. A marker edited by hand is plain text again.
 */
import stringWidth from "string-width";
import { count } from "../../render/count.js";
import { visibleControls } from "../../render/visible-controls.js";

/** A paste with at least this many lines (or characters) is shown collapsed. */
export const collapseLines = 5;
export const collapseChars = 2000;

/** Where the prompt and its text go on the screen. */
export interface EditLayout {
  /** The display lines, the prompt before the first and an indent before the others. */
  lines: string[];
  /** The cursor, in rows from the first display row and columns from the left. */
  cursorRow: number;
  cursorColumn: number;
  /** Rows the display lines take. */
  rows: number;
}

/** The text being edited. */
export class EditBuffer {
  text = "";
  /** Cursor position, an index into {@link text}. */
  cursor = 0;
  readonly #pastes = new Map<string, string>();

  constructor(initial = "") {
    this.set(initial);
  }

  /** A copy to edit, this one left as it is (its pastes kept). */
  clone(): EditBuffer {
    const copy = new EditBuffer(this.text);
    copy.cursor = this.cursor;
    for (const [marker, pasted] of this.#pastes) copy.#pastes.set(marker, pasted);
    return copy;
  }

  /** Applies an editing key both the prompt and the type-ahead of a turn share (others do nothing). */
  editKey(name: string): void {
    switch (name) {
      case "backspace":
        return this.backspace();
      case "delete":
        return this.delete();
      case "left":
        return this.left();
      case "right":
        return this.right();
      case "home":
        return this.home();
      case "end":
        return this.end();
      case "word-left":
        return this.wordLeft();
      case "word-right":
        return this.wordRight();
      case "ctrl-u":
        return this.killToStart();
      case "ctrl-k":
        return this.killToEnd();
      case "ctrl-w":
        return this.killWord();
    }
  }

  /** Enter after a `\\`: the backslash becomes a line break (true); otherwise nothing happens (false). */
  continueLine(): boolean {
    if (!this.text.slice(0, this.cursor).endsWith("\\")) return false;
    this.backspace();
    this.insert("\n");
    return true;
  }

  /** Replaces the whole text (the cursor at its end). */
  set(text: string): void {
    this.text = text;
    this.cursor = text.length;
  }

  insert(text: string): void {
    this.text = this.text.slice(0, this.cursor) + text + this.text.slice(this.cursor);
    this.cursor += text.length;
  }

  /** Inserts a paste: line ends made `\n`; a large one as a marker. */
  paste(raw: string): void {
    const text = raw.replace(/\r\n?/g, "\n");
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lines < collapseLines && text.length < collapseChars) return this.insert(text);
    const base = lines > 1 ? `pasted ${count(lines, "line")}` : `pasted ${count(text.length, "character")}`;
    let marker = `[${base}]`;
    for (let n = 2; this.#pastes.has(marker); n++) marker = `[${base} #${n}]`;
    this.#pastes.set(marker, text);
    this.insert(marker);
  }

  /** The text to send: each paste marker still in the text replaced by what was pasted. */
  submitted(): string {
    let text = this.text;
    for (const [marker, pasted] of this.#pastes) text = text.split(marker).join(pasted);
    return text;
  }

  /** Replaces the text from index `from` to the cursor with `text` (a completion). */
  replaceBefore(from: number, text: string): void {
    this.text = this.text.slice(0, from) + text + this.text.slice(this.cursor);
    this.cursor = from + text.length;
  }

  backspace(): void {
    if (this.cursor === 0) return;
    const from = this.cursor - charBefore(this.text, this.cursor).length;
    this.text = this.text.slice(0, from) + this.text.slice(this.cursor);
    this.cursor = from;
  }

  delete(): void {
    if (this.cursor >= this.text.length) return;
    this.text = this.text.slice(0, this.cursor) + this.text.slice(this.cursor + charAt(this.text, this.cursor).length);
  }

  left(): void {
    this.cursor -= charBefore(this.text, this.cursor).length;
  }

  right(): void {
    this.cursor += charAt(this.text, this.cursor).length;
  }

  home(): void {
    this.cursor = this.#lineStart();
  }

  end(): void {
    const next = this.text.indexOf("\n", this.cursor);
    this.cursor = next < 0 ? this.text.length : next;
  }

  /** Moves to the line above (false on the first line). */
  up(): boolean {
    const start = this.#lineStart();
    if (start === 0) return false;
    const column = this.cursor - start;
    const above = this.text.lastIndexOf("\n", start - 2) + 1;
    this.cursor = Math.min(above + column, start - 1);
    return true;
  }

  /** Moves to the line below (false on the last line). */
  down(): boolean {
    const next = this.text.indexOf("\n", this.cursor);
    if (next < 0) return false;
    const column = this.cursor - this.#lineStart();
    const after = this.text.indexOf("\n", next + 1);
    this.cursor = Math.min(next + 1 + column, after < 0 ? this.text.length : after);
    return true;
  }

  wordLeft(): void {
    const before = this.text.slice(0, this.cursor);
    this.cursor = before.replace(/\S+\s*$|\s+$/u, "").length;
  }

  wordRight(): void {
    const match = /^\s*\S+|^\s+/u.exec(this.text.slice(this.cursor));
    this.cursor += match ? match[0].length : 0;
  }

  /** Ctrl-U: deletes to the start of the line. */
  killToStart(): void {
    const start = this.#lineStart();
    this.text = this.text.slice(0, start) + this.text.slice(this.cursor);
    this.cursor = start;
  }

  /** Ctrl-K: deletes to the end of the line. */
  killToEnd(): void {
    const next = this.text.indexOf("\n", this.cursor);
    this.text = this.text.slice(0, this.cursor) + (next < 0 ? "" : this.text.slice(next));
  }

  /** Ctrl-W: deletes the word before the cursor. */
  killWord(): void {
    const end = this.cursor;
    this.wordLeft();
    this.text = this.text.slice(0, this.cursor) + this.text.slice(end);
  }

  /**
   * Lays the text out after `prompt` (which may carry colour) at `columns`:
   * lines after the first are indented as far as the prompt is wide, control
   * characters are shown as visible stand-ins, and a line is given the rows
   * its wrapping takes plus one, so the cursor can sit after its last
   * character.
   */
  layout(prompt: string, columns: number): EditLayout {
    const indent = " ".repeat(Math.min(stringWidth(prompt), Math.max(0, columns - 10)));
    const lines = this.text.split("\n");
    let offset = 0;
    let rows = 0;
    let cursorRow = 0;
    let cursorColumn = 0;
    const shown: string[] = [];
    lines.forEach((line, i) => {
      const lead = i === 0 ? prompt : indent;
      const display = lead + visibleControls(line, { oneLine: true });
      shown.push(display);
      if (this.cursor >= offset && this.cursor <= offset + line.length) {
        const width = stringWidth(lead + visibleControls(line.slice(0, this.cursor - offset), { oneLine: true }));
        cursorRow = rows + Math.floor(width / columns);
        cursorColumn = width % columns;
      }
      rows += Math.floor(stringWidth(display) / columns) + 1;
      offset += line.length + 1;
    });
    return { lines: shown, cursorRow, cursorColumn, rows };
  }

  #lineStart(): number {
    return this.text.lastIndexOf("\n", this.cursor - 1) + 1;
  }
}

function charBefore(text: string, index: number): string {
  if (index === 0) return "";
  const low = text.charCodeAt(index - 1);
  return low >= 0xdc00 && low <= 0xdfff && index >= 2 ? text.slice(index - 2, index) : text.slice(index - 1, index);
}

function charAt(text: string, index: number): string {
  return index >= text.length ? "" : String.fromCodePoint(text.codePointAt(index)!);
}
