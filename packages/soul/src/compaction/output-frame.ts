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
