/**
 * The frame some tools write around an output (mini-swe-agent's
 * `<returncode>…</returncode>` then `<output>` … `</output>`): its lines are
 * the tool's, not the output's.
 */

/** The index of the `<output>` line that opens the content, looked for among the 3 lines from `from`; -1 without a frame. */
export function outputFrameOpen(lines: readonly string[], from = 0): number {
  const at = lines.slice(from, from + 3).findIndex((line) => line.trim() === "<output>");
  return at < 0 ? -1 : from + at;
}

/** The index of the `</output>` line that closes the frame opened at `open` (the last non-blank line); -1 when there is none. */
export function outputFrameClose(lines: readonly string[], open: number): number {
  if (open < 0) return -1;
  const last = lines.findLastIndex((line) => line.trim() !== "");
  return last > open && lines[last]!.trim() === "</output>" ? last : -1;
}

/** The lines of an output without its frame: those between the `<output>` line and the `</output>` that closes it; all of `lines` without a frame. */
export function outputContent(lines: readonly string[]): readonly string[] {
  const open = outputFrameOpen(lines);
  if (open < 0) return lines;
  const close = outputFrameClose(lines, open);
  return lines.slice(open + 1, close < 0 ? undefined : close);
}
