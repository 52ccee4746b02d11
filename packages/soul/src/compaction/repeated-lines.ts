/**
 * Repeated lines: what an older tool output shows that the context shows
 * again. An agent reads the same region of a file twice, re-runs the same
 * test suite, repeats a search; the older copy of those lines then costs
 * tokens and tells the next steps nothing the newer copy does not, while
 * whole rounds of other content are dropped for want of room. At compaction
 * time, a run of lines that a newer kept tool output shows again verbatim
 * (in the same order, line numbers included) is condensed to its first and
 * last lines and a marker, and so is a run of identical lines (a warning or
 * a log line printed over and over). Lines that report a failure stay
 * whole. The full text stays in the rotation, where a recall pointer finds
 * it.
 */
import { extractText, type Message } from "@kosong/core";
import { outputFrameOpen } from "./output-frame.js";
import { reportsFailure } from "./tool-output-excerpt.js";

/** A run of lines shown again is condensed when it has at least this many lines. */
const MIN_RUN = 6;
/** Lines kept verbatim at each end of a condensed run. */
const EDGE = 2;
/** A run of identical lines is condensed when it has at least this many lines. */
const MIN_IDENTICAL = 4;
/** A run is looked for from a line at least this long (shorter ones, `}` or blank, occur everywhere). */
const MIN_START = 4;
/** At most this many places of a line in the newer outputs are tried as the start of a run. */
const MAX_TRIES = 32;

/** The marker of lines a newer output shows again. */
const SHOWN_AGAIN = (n: number): string => `[... ${n} lines shown again in a later output ...]`;
/** The marker of identical lines after the first. */
const IDENTICAL = (n: number): string => `[... ${n} more identical lines ...]`;
/** A line that is not shown content: a gap or header marker of a compaction (`[... 12 lines ...]`, `[excerpt: …]`). */
const GAP = /^\[(?:\.\.\. .*\.\.\.|excerpt: .*|tool output elided: .*)\]$/;

/** One output's lines (ends trimmed) and the range of them that is shown content (inside a `<output>` frame, when there is one). */
interface Shown {
  lines: string[];
  lo: number;
  hi: number;
}

function shownOf(text: string): Shown {
  const lines = text.split("\n").map((line) => line.trimEnd());
  const open = outputFrameOpen(lines);
  const close = lines.lastIndexOf("</output>");
  return { lines, lo: open + 1, hi: close >= Math.max(open + 1, lines.length - 2) ? close : lines.length };
}

/**
 * The lines that the newer tool outputs kept in a context show, output by
 * output: a run of an older output counts as shown again only when one
 * newer output shows all of it, in order.
 */
export class ShownLines {
  readonly #outputs: Shown[] = [];
  readonly #places = new Map<string, Array<[number, number]>>();

  /** Adds the text of a (newer) tool output. */
  add(text: string): void {
    const shown = shownOf(text);
    const o = this.#outputs.push(shown) - 1;
    for (let p = shown.lo; p < shown.hi; p++) {
      const line = shown.lines[p]!;
      if (line.trim().length < MIN_START || GAP.test(line)) continue;
      const places = this.#places.get(line);
      if (places === undefined) this.#places.set(line, [[o, p]]);
      else if (places.length < MAX_TRIES) places.push([o, p]);
    }
  }

  /**
   * The longest run of `old` from `from` (before `hi`) that one newer output
   * shows in order, and whether both its ends are safe to condense: each end
   * is the end of `old`'s content or a place where the newer copy goes on
   * with other content (not the edge of a narrower view, where the older
   * copy holds the only context beyond: an edit's old text may span it).
   */
  runAt(old: readonly string[], from: number, lo: number, hi: number): { length: number; safe: boolean } {
    let best = { length: 0, safe: false };
    for (const [o, p] of this.#places.get(old[from]!) ?? []) {
      const later = this.#outputs[o]!;
      let length = 0;
      while (from + length < hi && p + length < later.hi && old[from + length] === later.lines[p + length]) length++;
      if (length <= best.length) continue;
      // The newer copy goes on past an end with other content (an edit, another result), not with nothing or a gap marker.
      const goesOn = (at: number, mine: number): boolean => at >= later.lo && at < later.hi && !GAP.test(later.lines[at]!) && later.lines[at] !== old[mine];
      const safe = (from === lo || goesOn(p - 1, from - 1)) && (from + length === hi || goesOn(p + length, from + length));
      best = { length, safe };
    }
    return best;
  }
}

/**
 * `text` (an older tool output) with each run of at least 6 lines that one
 * newer output of `later` shows again (see {@link ShownLines.runAt}, only
 * runs whose ends are safe) condensed to its first and last 2 lines around
 * `[... N lines shown again in a later output ...]`, and each run of at
 * least 4 identical non-blank lines condensed to its first line and
 * `[... N more identical lines ...]`. A line that reports a failure (see
 * {@link reportsFailure}) is never condensed. Null when nothing is
 * condensed.
 */
export function condensedRepeats(text: string, later: ShownLines): string | null {
  const lines = text.split("\n");
  const { lines: trimmed, lo, hi } = shownOf(text);
  const out: string[] = [];
  let condensed = false;
  /** Pushes lines [from, to) with each stretch of those that report no failure condensed into one `marker`, when that is shorter. */
  const condense = (from: number, to: number, marker: (n: number) => string): void => {
    let at = from;
    while (at < to) {
      let end = at;
      while (end < to && !reportsFailure(trimmed[end]!)) end++;
      const piece = marker(end - at);
      if (end - at >= 2 && piece.length < lines.slice(at, end).join("\n").length) {
        out.push(piece);
        condensed = true;
      } else out.push(...lines.slice(at, end));
      if (end < to) out.push(lines[end]!);
      at = end + 1;
    }
  };
  let i = 0;
  while (i < lines.length) {
    const inside = i >= lo && i < hi;
    const run = inside && trimmed[i]!.trim().length >= MIN_START ? later.runAt(trimmed, i, lo, hi) : { length: 0, safe: false };
    if (run.safe && run.length >= MIN_RUN) {
      out.push(...lines.slice(i, i + EDGE));
      condense(i + EDGE, i + run.length - EDGE, SHOWN_AGAIN);
      out.push(...lines.slice(i + run.length - EDGE, i + run.length));
      i += run.length;
      continue;
    }
    if (run.length >= MIN_RUN) {
      // Shown again but not safe to condense: left whole, and not searched again from inside (a long run stays linear).
      out.push(...lines.slice(i, i + run.length));
      i += run.length;
      continue;
    }
    let k = i + 1;
    while (inside && k < hi && trimmed[k] === trimmed[i] && trimmed[i] !== "") k++;
    if (k - i >= MIN_IDENTICAL) {
      out.push(lines[i]!);
      condense(i + 1, k, IDENTICAL);
      i = k;
      continue;
    }
    out.push(lines[i]!);
    i++;
  }
  return condensed ? out.join("\n") : null;
}

/**
 * `message` with its text condensed by {@link condensedRepeats} against
 * `later`, when it is a tool output of text only and the condensed form is
 * smaller by `count`; null otherwise. Either way the caller adds the form it
 * keeps to `later` before it looks at older outputs.
 */
export function condensedOutput(message: Message, later: ShownLines, count: (message: Message) => number): Message | null {
  if (message.role !== "tool" || message.content.some((part) => part.type !== "text")) return null;
  const short = condensedRepeats(extractText(message, "\n"), later);
  if (short === null) return null;
  const replacement: Message = { ...message, content: [{ type: "text", text: short }] };
  return count(replacement) < count(message) ? replacement : null;
}

/**
 * `messages` (older than every output `later` holds) with each tool output
 * condensed by {@link condensedOutput}, newest first, each against `later`
 * and the newer ones of `messages`, which it adds to `later` as kept.
 */
export function condensedNewestFirst(messages: readonly Message[], later: ShownLines, count: (message: Message) => number): Message[] {
  const out = [...messages];
  for (let k = out.length - 1; k >= 0; k--) {
    out[k] = condensedOutput(out[k]!, later, count) ?? out[k]!;
    addShown(later, out[k]!);
  }
  return out;
}

/** Adds `message` to `later` when it is a tool output (its text, as kept). */
export function addShown(later: ShownLines, message: Message): void {
  if (message.role === "tool") later.add(extractText(message, "\n"));
}

/** The note a compaction result carries when `n` tool outputs were condensed. */
export function condensedNote(n: number): string {
  return `${n} tool output${n === 1 ? "" : "s"} condensed: lines a later output shows again, or repeated lines, became a marker (the full text stays recallable).`;
}
