/**
 * Streamed assistant text rendered as Markdown. Text arrives in small
 * pieces and is shown at once as it comes (a live preview); as soon as a
 * block is complete (a paragraph at its blank line, a fenced code block at
 * its closing fence), its preview is erased and the block is rendered with
 * marked + marked-terminal. A preview taller than the screen stays as it is
 * (it can no longer be erased). Without colours (NO_COLOR, not a TTY) the
 * text is written as it comes, unchanged.
 */
import stringWidth from "string-width";
import { startupMark } from "../startup-marks.js";
import { eraseRowsSequence } from "./screen-writer.js";
import type { Style } from "./terminal-style.js";

type Render = (markdown: string) => string;

type Modules = [typeof import("marked"), typeof import("marked-terminal")];

let modulesPromise: Promise<Modules> | null = null;
const renderers = new Map<number, Promise<Render>>();

/** Loads marked and marked-terminal once (they are heavy: loaded after the prompt is up), and a renderer per width. */
export function loadMarkdownRenderer(columns: number): Promise<Render> {
  const width = Math.max(40, Math.min(columns, 120));
  modulesPromise ??= Promise.all([import("marked"), import("marked-terminal")]);
  let renderer = renderers.get(width);
  if (!renderer) {
    renderer = modulesPromise.then((modules) => markdownRenderer(modules, width));
    renderers.set(width, renderer);
  }
  return renderer;
}

/**
 * Markdown that goes through the block and inline rules answers use
 * (headings, paragraphs, lists, a quote, a table, emphasis, inline code, a
 * link), and through none that loads more: no code block (highlight.js) and
 * no `:emoji:` code (the emoji table).
 */
const warmUpBlocks = [
  "# Heading",
  "A paragraph with **bold**, *emphasis*, `code` and a [link](https://example.com).",
  "Setext heading\n---",
  "- item\n- item with **bold**\n  - nested",
  "1. first\n2. second",
  "> a quote",
  "| a | b |\n| - | - |\n| 1 | 2 |",
  "***",
];

/**
 * Loads the renderer for `columns` (as {@link loadMarkdownRenderer}) and
 * renders a sample with it, discarding the result, so that the first answer
 * does not pay for compiling marked's rules and code. Meant for idle time
 * (the user typing at the first prompt): the sample goes a block per turn of
 * the event loop, and stops as soon as `idle()` is false (a key press waits
 * for one block at most; a turn started meanwhile renders as it would have).
 */
export async function warmMarkdownRenderer(columns: number, idle: () => boolean = () => true): Promise<void> {
  // Not loaded ahead of a turn already started: marked's modules would evaluate before its request goes out.
  if (!idle()) return;
  const render = await loadMarkdownRenderer(columns);
  for (const block of warmUpBlocks) {
    await new Promise((resolve) => setImmediate(resolve));
    if (!idle()) return;
    render(block);
  }
  startupMark("markdown-warmed");
}

function markdownRenderer([{ Marked }, { markedTerminal }]: Modules, width: number): Render {
  const marked = new Marked();
  marked.use(markedTerminal({ width, reflowText: true, tab: 2 }) as Parameters<typeof marked.use>[0]);
  // marked-terminal renders a text token's raw text, so the inline Markdown of tight list items
  // (`- **bold** and `code``) stayed literal: render their inline tokens instead.
  // A link shows its target: a terminal hyperlink (what marked-terminal writes where supported) would let the
  // model's text pass for another address.
  marked.use({
    renderer: {
      text(token) {
        return "tokens" in token && token.tokens ? this.parser.parseInline(token.tokens) : false;
      },
      link(token) {
        const text = this.parser.parseInline(token.tokens);
        return text === token.href ? token.href : `${text} (${token.href})`;
      },
    },
  });
  return (markdown: string) => (marked.parse(markdown, { async: false }) as string).replace(/\n+$/, "");
}

/** Where the stream writes and how big the screen is. */
export interface MarkdownTarget {
  write: (text: string) => void;
  style: Style;
  /** Columns of the terminal. */
  columns: number;
  /** Rows of the terminal (a preview taller than this is not erased). */
  rows: number;
}

/** Renders one stream of Markdown text, block by block. */
export class MarkdownStream {
  /** Text of the blocks not rendered yet. */
  #pending = "";
  /** The part of #pending already shown as a raw preview. */
  #previewed = "";
  #wroteRaw = false;
  #lastWritten = "";

  constructor(private readonly target: MarkdownTarget) {}

  #write(text: string): void {
    if (text) this.#lastWritten = text;
    this.target.write(text);
  }

  /** Adds streamed text: shown at once, complete blocks rendered. */
  async push(text: string): Promise<void> {
    if (!text) return;
    if (!this.target.style.isColorSupported) {
      this.#write(text);
      this.#wroteRaw = true;
      return;
    }
    this.#pending += text;
    const cut = completeBlocksEnd(this.#pending);
    if (cut > 0) {
      const blocks = this.#pending.slice(0, cut);
      this.#pending = this.#pending.slice(cut);
      await this.#renderOverPreview(blocks);
    }
    // A paragraph about to grow taller than the screen could no longer be erased: render it so far, cut at a space.
    const space = this.#pending.lastIndexOf(" ");
    if (space > 0 && !opensFence(this.#pending) && rowsOf(this.#pending, this.target.columns) >= this.target.rows - 1) {
      const part = this.#pending.slice(0, space);
      this.#pending = this.#pending.slice(space + 1);
      await this.#renderOverPreview(part, "\n");
    }
    this.#preview();
  }

  /** Renders what is left; the stream can then start again. */
  async end(): Promise<void> {
    if (this.#pending.trim()) await this.#renderOverPreview(this.#pending);
    else this.#erasePreview();
    if (this.#wroteRaw) this.#write("\n\n");
    this.#pending = "";
    this.#previewed = "";
    this.#wroteRaw = false;
  }

  /**
   * Writes `line` (ending in a newline) between the streamed text's lines:
   * the live preview is erased, the line written, and the preview shown
   * again under it. A preview taller than the screen stays, and the line
   * follows it.
   */
  interject(line: string): void {
    if (!this.target.style.isColorSupported || !this.#erase(this.#previewed)) {
      this.#write(`${this.#atLineStart() ? "" : "\n"}${line}`);
      return;
    }
    this.#write(line);
    this.#previewed = "";
    this.#preview();
  }

  #atLineStart(): boolean {
    return this.#lastWritten === "" || this.#lastWritten.endsWith("\n");
  }

  /** Shows the part of the pending text not shown yet. */
  #preview(): void {
    const fresh = this.#pending.slice(this.#previewed.length);
    if (!fresh) return;
    this.#write(this.target.style.dim(fresh));
    this.#previewed = this.#pending;
  }

  async #renderOverPreview(markdown: string, after = "\n\n"): Promise<void> {
    const render = await loadMarkdownRenderer(this.target.columns);
    const shown = this.#previewed;
    this.#previewed = "";
    if (!this.#erase(shown)) {
      // The preview scrolled off: keep it, and only what it had not shown yet follows.
      this.#write(`${markdown.slice(shown.length)}\n`);
      return;
    }
    if (markdown.trim()) this.#write(`${render(markdown)}${after}`);
  }

  #erasePreview(): void {
    this.#erase(this.#previewed);
    this.#previewed = "";
  }

  /** Moves the cursor back over `shown` and clears it; false when it is taller than the screen. */
  #erase(shown: string): boolean {
    if (!shown) return true;
    const rows = rowsOf(shown, this.target.columns);
    if (rows >= this.target.rows) return false;
    this.#write(eraseRowsSequence(rows));
    return true;
  }
}

/** Terminal rows `text` takes when written from the start of a line, wrapping at `columns`. */
export function rowsOf(text: string, columns: number): number {
  return text.split("\n").reduce((rows, line) => rows + Math.max(1, Math.ceil(stringWidth(line) / columns)), 0);
}

/**
 * The end of the complete blocks at the start of `text`: after the last
 * blank line that is outside a code fence, or 0 when no block is complete.
 */
export function completeBlocksEnd(text: string): number {
  let inFence = false;
  let end = 0;
  let offset = 0;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i]!;
    offset += line.length + 1;
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      if (!inFence) end = offset;
    } else if (!inFence && line.trim() === "" && i > 0) {
      end = offset;
    }
  }
  return end;
}

/** Whether `text` has a code fence it does not close. */
function opensFence(text: string): boolean {
  return text.split("\n").filter((line) => /^\s*(```|~~~)/.test(line)).length % 2 === 1;
}
