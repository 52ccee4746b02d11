/**
 * The lines an approval request is shown as: what the tool wants to do, and
 * under it, in a gutter, the rest of its description (a file tool's diff,
 * coloured: removed lines red, added green, hunk headers cyan), cut to fit
 * the screen with a count of the lines left out. The gutter keeps a later
 * line from passing for a prompt line. The description must already be
 * safe to show (its control characters made visible).
 */
import { count } from "./count.js";
import type { Style } from "./terminal-style.js";

/** Tools whose approval description carries a diff after its first line. */
const diffTools = new Set(["EditFile", "WriteFile"]);

/** The lines of `description` from `sender`, at most `maxLines` of them after the first. */
export function approvalLines(sender: string, description: string, style: Style, maxLines: number): string[] {
  const [first = "", ...rest] = description.split("\n");
  const colour = diffTools.has(sender) ? diffColour(style) : (line: string) => line;
  const shown = rest.length > maxLines ? rest.slice(0, Math.max(1, maxLines - 1)) : rest;
  const gutter = `  ${style.dim("│")} `;
  const lines = [`${style.yellow("?")} ${style.bold(sender)} wants to: ${first}`, ...shown.map((line) => gutter + colour(line))];
  if (shown.length < rest.length) lines.push(gutter + style.dim(`… ${count(rest.length - shown.length, "more line")} not shown`));
  return lines;
}

function diffColour(style: Style): (line: string) => string {
  return (line) => (line.startsWith("@@") ? style.cyan(line) : line.startsWith("+") ? style.green(line) : line.startsWith("-") ? style.red(line) : line.startsWith("…") ? style.dim(line) : line);
}
