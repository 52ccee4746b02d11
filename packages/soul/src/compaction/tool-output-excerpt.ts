/**
 * Excerpts, not stubs: a tool output too big to keep is cut to the lines
 * that name what the recent messages work on (see {@link WorkingSet}), with
 * a couple of lines of context and their line numbers, and the lines that
 * report a failure (failing tests, error lines) kept whole, instead of
 * being replaced by a stub that keeps nothing.
 */
import { extractText, type Message, type ToolCall } from "@kosong/core";
import type { Tokenizer } from "../tokens/index.js";
import { argumentValues } from "./message-strings.js";
import { outputFrameOpen } from "./output-frame.js";
import { truncateText } from "./truncate-text.js";
import type { WorkingSet } from "./working-set.js";

/** A line that reports a failure: a failing test, a lint finding, a traceback's error line, an assertion. */
const FAILING = /^\s*(?:FAILED|FAIL|ERROR|✗|✕|×|--- FAIL:)[\s:]|\b\w*(?:Error|Exception)\b(?::|$)|\bTraceback\b|\bassert(?:ion)?\b|^\s*[^\s:]+:\d+(?::\d+)?:\s*(?:error|warning)\b/i;
/** A test runner's verdict at the end of a line (`path::test FAILED [ 50%]`, unittest's `test_x (Case) ... ERROR`). */
const FAILED_AT_END = /\s(?:FAILED|FAIL|ERROR)(?:\s+\[\s*\d+%\])?$/;
/** A line that already carries a line number (`cat -n`, `nl`, `grep -n`, `12→`), possibly after a path. */
const NUMBERED = /^\s*(?:[\w./-]+[:-])?\d+(?:\t|→|:|-(?=\s))/;
/** `sed -n 'A,Bp' file`: the first line shown is line A. */
const SED_RANGE = /\bsed\s+-n\s+['"]?(\d+)\s*,\s*\d+\s*p/;
/** Commands that show one file from its first line: `cat file`, `head [-n N] file`. */
const FROM_START = /^\s*(?:cat|head(?:\s+-n\s*\d+|\s+-\d+)?)\s+[^\s|;&<>]+\s*$/;
/** Context lines kept around each chosen line. */
const CONTEXT = 2;
/** A paragraph of a file view is kept in pieces of at most this many lines (see {@link excerptBody}). */
const PARAGRAPH = 16;
/** A gap between chosen lines this short (in lines) is filled when room is left. */
const SMALL_GAP = 2;
/** A chosen line longer than this is cut (a minified file must not fill the excerpt). */
const MAX_LINE = 600;

/**
 * The tool message `output` cut to at most `maxTokens` tokens of its most
 * relevant lines, in their order, with `[... N lines ...]` for each gap and
 * file line numbers when the call shows a file from a known line (`cat`,
 * `head`, `sed -n A,Bp`) and the output has none of its own; null when the
 * output has parts other than text or the excerpt would not be smaller.
 * An output that shows a file (numbered, or from a known line) is cut by
 * whole paragraphs first (see {@link excerptBody}).
 */
export function toolOutputExcerpt(output: Message, call: ToolCall | undefined, working: WorkingSet, maxTokens: number, tokenizer: Tokenizer): Message | null {
  if (output.role !== "tool" || output.content.some((part) => part.type !== "text")) return null;
  const text = extractText(output, "\n");
  const lines = text.split("\n");
  if (lines.length < 8) return null;
  // mini-swe-agent's `<returncode>…</returncode>\n<output>` frame: the shown content starts after it.
  const frame = outputFrameOpen(lines);
  const first = frame < 0 ? 0 : frame + 1;
  const head = lines.slice(first, first + 20);
  const numbering = numberingStart(call, head);
  const weights = lines.map((line, index) => {
    if (index < first || line.trim() === "") return 0;
    const named = working.lineWeight(line);
    return reportsFailure(line) ? Math.max(named, 3) : named;
  });
  const render = (paragraphs: boolean): string => {
    const { body, shown } = excerptBody(lines, weights, first, maxTokens - 24, numbering, paragraphs);
    return `[excerpt: ${shown} of ${lines.length} lines, those about what the recent messages work on]\n${body.join("\n")}`;
  };
  // A view of a file is cut by whole paragraphs, unless they run over the room (their tokens are estimated): then by lines.
  let joined = numbering !== null || isNumbered(head) ? render(true) : "";
  if (joined === "" || tokenizer.count(joined) > maxTokens) joined = render(false);
  if (joined.length >= text.length) return null;
  const excerpt = truncateText(joined, maxTokens, tokenizer);
  return { role: "tool", content: [{ type: "text", text: excerpt }], tool_call_id: output.tool_call_id };
}

/**
 * The lines of `lines` worth `weights` (0: none) within about `room` tokens:
 * the `first` lines (a frame) and the last 3, then the weighed lines best
 * first, then 2 lines of context around each, then (when nothing weighs) the
 * first 5 after the frame, then the lines of gaps of 1 or 2 lines between
 * chosen ones (contiguous lines); in their order, each gap as `[... N lines ...]`,
 * numbered from `numbering` (lines from `first` on) when it is not null.
 * With `paragraphs` (the lines show a file), the paragraphs that hold a
 * weighed line (runs of non-blank lines, in pieces of at most `PARAGRAPH`
 * lines) come first, whole, densest (weight per token) first, each while it
 * fits: the old text of the next edit is a block of contiguous lines around
 * what the agent works on, and scattered lines of it are no copy of it.
 */
export function excerptBody(
  lines: readonly string[],
  weights: readonly number[],
  first: number,
  room: number,
  numbering: number | null,
  paragraphs = false,
): { body: string[]; shown: number } {
  const cost = (line: string): number => Math.ceil(Math.min(line.length, MAX_LINE) / 3) + 1;
  let left = room;
  const chosen = new Set<number>();
  const take = (index: number): void => {
    if (index < 0 || index >= lines.length || chosen.has(index) || left < cost(lines[index]!)) return;
    chosen.add(index);
    left -= cost(lines[index]!);
  };
  for (let i = 0; i < first; i++) take(i);
  // The last lines: a test run's summary, a closing tag.
  for (let i = Math.max(first, lines.length - 3); i < lines.length; i++) take(i);
  const ranked = weights.flatMap((w, index) => (w > 0 ? [index] : [])).sort((a, b) => weights[b]! - weights[a]! || a - b);
  if (paragraphs) {
    for (const piece of weighedParagraphs(lines, weights, first, cost)) {
      if (piece.cost > left) continue;
      for (let i = piece.low; i <= piece.high; i++) take(i);
    }
  }
  for (const index of ranked) take(index);
  for (const index of ranked) for (let d = 1; d <= CONTEXT; d++) (take(index - d), take(index + d));
  if (ranked.length === 0) for (let i = first; i < first + 5; i++) take(i);
  // A gap of a line or two between chosen lines is filled while room is left: the lines stay contiguous (the old text of an edit
  // spans them) for about what the `[... N lines ...]` marker costs.
  const sorted = [...chosen].sort((a, b) => a - b);
  for (let k = 1; k < sorted.length; k++) {
    const gap = sorted[k]! - sorted[k - 1]! - 1;
    if (gap >= 1 && gap <= SMALL_GAP) for (let i = sorted[k - 1]! + 1; i < sorted[k]!; i++) take(i);
  }
  const order = [...chosen].sort((a, b) => a - b);
  const body: string[] = [];
  let previous = -1;
  for (const index of order) {
    if (index > previous + 1) body.push(`[... ${index - previous - 1} lines ...]`);
    const line = lines[index]!.length > MAX_LINE ? `${lines[index]!.slice(0, MAX_LINE)}…` : lines[index]!;
    body.push(numbering !== null && index >= first ? `${numbering + index - first}\t${line}` : line);
    previous = index;
  }
  if (previous < lines.length - 1) body.push(`[... ${lines.length - 1 - previous} lines ...]`);
  return { body, shown: order.length };
}

/**
 * The paragraphs of `lines` from `first` on (runs of non-blank lines, cut
 * into pieces of at most `PARAGRAPH` lines) that hold a weighed line, with
 * their cost, densest (summed weight per token) first.
 */
function weighedParagraphs(
  lines: readonly string[],
  weights: readonly number[],
  first: number,
  cost: (line: string) => number,
): Array<{ low: number; high: number; cost: number }> {
  const pieces: Array<{ low: number; high: number; cost: number; density: number }> = [];
  const add = (low: number, high: number): void => {
    for (let start = low; start <= high; start += PARAGRAPH) {
      const end = Math.min(high, start + PARAGRAPH - 1);
      let tokens = 0;
      let weight = 0;
      for (let i = start; i <= end; i++) {
        tokens += cost(lines[i]!);
        weight += weights[i]!;
      }
      if (weight > 0) pieces.push({ low: start, high: end, cost: tokens, density: weight / tokens });
    }
  };
  let low = -1;
  for (let i = first; i <= lines.length; i++) {
    const blank = i === lines.length || lines[i]!.trim() === "";
    if (blank && low >= 0) add(low, i - 1);
    if (blank) low = -1;
    else if (low < 0) low = i;
  }
  return pieces.sort((a, b) => b.density - a.density || a.low - b.low);
}

/** True when most of the non-blank `head` lines carry a line number of their own (`cat -n`, `grep -n`). */
function isNumbered(head: readonly string[]): boolean {
  const shown = head.filter((line) => line.trim() !== "");
  return shown.length > 0 && shown.filter((line) => NUMBERED.test(line)).length * 2 >= shown.length;
}

/** The file line number of the first shown line, when the call shows a file from a known line and the output is not numbered already. */
function numberingStart(call: ToolCall | undefined, head: readonly string[]): number | null {
  if (head.every((line) => line.trim() === "") || isNumbered(head)) return null;
  const command = argumentValues(call?.function.arguments ?? null).find(([key]) => key === null || /^(command|cmd)$/.test(key))?.[1];
  if (command === undefined || command.includes("\n")) return null;
  const sed = SED_RANGE.exec(command);
  if (sed !== null) return Number(sed[1]);
  return FROM_START.test(command) ? 1 : null;
}

/** True when `line` reports a failure: a failing test, a lint finding, a traceback's error line, an assertion. */
export function reportsFailure(line: string): boolean {
  return FAILING.test(line) || FAILED_AT_END.test(line.trimEnd());
}

/** True for a tool message made by {@link toolOutputExcerpt}. */
export function isToolOutputExcerpt(message: Message): boolean {
  const part = message.content[0];
  return message.role === "tool" && part?.type === "text" && /^\[excerpt: \d+ of \d+ lines, /.test(part.text);
}
