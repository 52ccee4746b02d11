/**
 * Streamed assistant text rendered as Markdown. Text arrives in small
 * pieces; a block is rendered (marked + marked-terminal) as soon as it is
 * complete: a paragraph at its blank line, a fenced code block at its
 * closing fence. The open block is rendered when the text ends. Without
 * colours the text is written as it comes, unchanged.
 */
import type { Style } from "./terminal-style.js";

type Render = (markdown: string) => string;

let rendererPromise: Promise<Render> | null = null;

/** Loads marked and marked-terminal once (they are heavy: loaded after the prompt is up). */
export function loadMarkdownRenderer(width: number): Promise<Render> {
  rendererPromise ??= (async () => {
    const [{ Marked }, { markedTerminal }] = await Promise.all([import("marked"), import("marked-terminal")]);
    const marked = new Marked();
    marked.use(markedTerminal({ width: Math.max(40, Math.min(width, 120)), reflowText: true, tab: 2 }) as Parameters<typeof marked.use>[0]);
    return (markdown: string) => (marked.parse(markdown, { async: false }) as string).replace(/\n+$/, "");
  })();
  return rendererPromise;
}

/** Renders one stream of Markdown text, block by block. */
export class MarkdownStream {
  #pending = "";
  #wroteRaw = false;

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
    private readonly width: number,
  ) {}

  /** Adds streamed text; complete blocks are written. */
  async push(text: string): Promise<void> {
    if (!this.style.isColorSupported) {
      this.write(text);
      this.#wroteRaw ||= text.length > 0;
      return;
    }
    this.#pending += text;
    const cut = completeBlocksEnd(this.#pending);
    if (cut > 0) {
      const blocks = this.#pending.slice(0, cut);
      this.#pending = this.#pending.slice(cut);
      await this.#render(blocks);
    }
  }

  /** Writes what is left; the stream can then start again. */
  async end(): Promise<void> {
    if (this.#pending.trim()) await this.#render(this.#pending);
    if (this.#wroteRaw) this.write("\n\n");
    this.#pending = "";
    this.#wroteRaw = false;
  }

  async #render(markdown: string): Promise<void> {
    if (!markdown.trim()) return;
    const render = await loadMarkdownRenderer(this.width);
    this.write(`${render(markdown)}\n\n`);
  }
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
