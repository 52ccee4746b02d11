/**
 * A tool result's output as the terminal shows it: the full text (an error's
 * message, then the output), control characters visible, and a preview of a
 * few of its lines under the result's line, in a gutter: the first lines, or
 * for Shell the last ones (where errors and the end of a build are), with a
 * count of the lines left out.
 */
import type { ToolReturnValue } from "@kosong/core";
import { count } from "./count.js";
import { cutToWidth } from "./cut-to-width.js";
import type { Style } from "./terminal-style.js";
import { visibleControls } from "./visible-controls.js";

/** Lines of output shown under a tool's result line. */
export const previewLines = 4;

/** The result's whole output (an error's message first), safe to show. */
export function toolOutputText(result: ToolReturnValue): string {
  const output = typeof result.output === "string" ? result.output : result.output.flatMap((part) => (part.type === "text" ? [part.text] : [`[${part.type}]`])).join("\n");
  const parts = result.is_error && result.message && result.message !== output ? [result.message, output] : [output];
  return visibleControls(parts.filter((part) => part.trim()).join("\n").replace(/\s+$/, ""));
}

/** Up to {@link previewLines} lines of `text` in a gutter (the last ones when `tail`), and how many more there are. */
export function toolOutputPreview(text: string, tail: boolean, style: Style, columns: number): string[] {
  if (!text) return [];
  const lines = text.split("\n");
  const shown = tail ? lines.slice(-previewLines) : lines.slice(0, previewLines);
  const width = Math.max(20, columns - 6);
  const gutter = `  ${style.dim("│")} `;
  // Cut in terminal columns (a CJK character or an emoji takes two), so a wide line does not wrap either.
  const preview = shown.map((line) => gutter + style.dim(cutToWidth(line, width)));
  const more = lines.length - shown.length;
  if (more === 0) return preview;
  const note = gutter + style.dim(`… ${count(more, "more line")} (Ctrl-O shows all)`);
  return tail ? [note, ...preview] : [...preview, note];
}
