/**
 * The hits of the searches a compaction gave up: the `path:line: text`
 * lines that `grep -n`, `rg -n` and search tools print, kept verbatim under
 * the command that found them. A search's hit lines are where things are
 * (the line numbers the next `sed -n` or edit uses, the line as written);
 * they are a small part of its output (the context lines around them and
 * the rest of the round go), so the lines a user would look for again
 * stay when the round that found them is dropped. A search that found one
 * line (a definition looked up: `grep -n -A 20 "def union"`) keeps its
 * context lines too: they are the body of what was looked up, the lines
 * (and line numbers) the next edit works on.
 */
import { extractText, type Message } from "@kosong/core";
import type { Tokenizer } from "../tokens/index.js";
import { argumentValues } from "./message-strings.js";
import { noticeLine } from "./notice-line.js";
import { outputContent } from "./output-frame.js";

/** A hit line: a line number after an optional path, then `:` (`12:text`, `src/a.ts:12:text`). */
const HIT = /^(?:[^\s:]+:)?\d+:/;
/** A context line of a search (`12-text`, `src/a.ts-12-text`) or the `--` between groups. */
const CONTEXT = /^(?:[^\s:]+-)?\d+-|^--$/;
/** A hit line is kept up to this many characters (the line number and the start of the line, where the definition is). */
const LINE_CHARS = 100;
/** A leading `cd DIR &&` (or `;`) of a command: the heading names the search without it. */
const LEADING_CD = /^\s*cd\s+\S+\s*(?:&&|;)\s*/;
/** The command heading a search's hits is cut to this many characters (without a leading `cd DIR &&`). */
const COMMAND_CHARS = 100;
/** An output is a search's when at least this share of its non-empty lines are hit, context or separator lines. */
const SEARCH_SHAPE = 0.6;

/** The title of the section; it comes before an identifier index in the notice. */
export const SEARCH_HITS_TITLE = "## Search hits in the removed messages (line: text)";

/** Options of {@link searchHits}. */
export interface SearchHitsOptions {
  /** The most tokens the section may take. */
  maxTokens: number;
  tokenizer: Tokenizer;
  /** Messages that stay in the context: a hit line they show again is left out. */
  kept?: readonly Message[];
  /** Text written beside the section (a summary's other sections): a hit line it holds as a line (or a `- ` list item) is left out. */
  beside?: string;
}

/**
 * The hit lines of the search outputs among `history[lost]` (tool outputs
 * whose lines are mostly `N:`/`path:N:` hits, `N-` context lines and `--`;
 * a search with one hit keeps its context lines too, the definition looked up),
 * the searches with the fewest hits first (newest first among equals), each
 * under the search's command, at most
 * `maxTokens` tokens; the empty string when there is none or no room.
 * Lines are cut to 100 characters and cleaned of control characters (they
 * come from tools); a line a kept message or the text `beside` shows, or an
 * earlier-listed search already listed, is left out.
 */
export function searchHits(history: readonly Message[], lost: Iterable<number>, options: SearchHitsOptions): string {
  return new SearchHits(history, lost, options).section(options.maxTokens, options.beside);
}

/** One search: the heading of its hits (its command) and the lines to list. */
interface Search {
  heading: string;
  hits: string[];
}

/**
 * The searches among some given-up messages, read once, for sections of
 * several sizes (see {@link searchHits}): a summary and a fitting measure
 * what the hits want, then write them in the room left.
 */
export class SearchHits {
  readonly #tokenizer: Tokenizer;
  readonly #searches: Search[];
  /** The lines kept messages show. */
  readonly #kept = new Set<string>();
  readonly #tokens = new Map<string, number>();

  /** Reads the searches among `history[lost]`; `options.kept` as in {@link SearchHitsOptions}. */
  constructor(history: readonly Message[], lost: Iterable<number>, options: Pick<SearchHitsOptions, "tokenizer" | "kept">) {
    this.#tokenizer = options.tokenizer;
    for (const message of options.kept ?? []) if (message.role === "tool") for (const line of extractText(message, "\n").split("\n")) this.#kept.add(line.trim());
    const commands = commandsById(history);
    // A search that found a few lines (a definition looked up) comes before a broad one; newest first among equals.
    const searches = [...lost].flatMap((index) => {
      const message = history[index];
      return message?.role === "tool" ? [{ index, message, ...hitLines(extractText(message, "\n")) }] : [];
    });
    searches.sort((a, b) => a.found - b.found || b.index - a.index);
    this.#searches = searches.flatMap(({ message, hits }) =>
      hits.length === 0 ? [] : [{ heading: `$ ${noticeLine((commands.get(message.tool_call_id ?? "") ?? "search").replace(LEADING_CD, ""), COMMAND_CHARS)}`, hits }],
    );
  }

  /** The section (see {@link searchHits}) in at most `maxTokens` tokens, leaving out the lines `beside` holds. */
  section(maxTokens: number, beside = ""): string {
    if (maxTokens < 24 || this.#searches.length === 0) return "";
    const shown = new Set(this.#kept);
    // A line beside is matched whole (a list item's `- ` aside): a set, not a scan of the text per hit, and `5: x` is not `105: x`.
    for (const line of beside.split("\n")) shown.add(line.trim().replace(/^- /, ""));
    let left = maxTokens - this.#count(SEARCH_HITS_TITLE) - 2;
    const groups: string[] = [];
    for (const { heading, hits } of this.#searches) {
      const lines: string[] = [];
      let cost = this.#count(heading) + 1;
      for (const hit of hits) {
        if (shown.has(hit.trim())) continue;
        const line = noticeLine(hit, LINE_CHARS);
        const tokens = this.#count(line) + 1;
        if (cost + tokens > left) break;
        shown.add(hit.trim());
        lines.push(line);
        cost += tokens;
      }
      if (lines.length === 0) continue;
      groups.push([heading, ...lines].join("\n"));
      left -= cost;
    }
    return groups.length === 0 ? "" : `${SEARCH_HITS_TITLE}\n${groups.join("\n")}`;
  }

  #count(text: string): number {
    let tokens = this.#tokens.get(text);
    if (tokens === undefined) this.#tokens.set(text, (tokens = this.#tokenizer.count(text)));
    return tokens;
  }
}

/**
 * `section` (what {@link searchHits} wrote) without the hit lines a message
 * of `kept` shows (a search round put back after the section was written),
 * and without a command left with no hit; the empty string when none is
 * left. Never longer than `section`.
 */
export function withoutShownHits(section: string, kept: readonly Message[]): string {
  if (section === "") return section;
  const shown = new Set<string>();
  for (const message of kept) if (message.role === "tool") for (const line of extractText(message, "\n").split("\n")) shown.add(noticeLine(line, LINE_CHARS));
  const [title, ...lines] = section.split("\n");
  const groups: string[][] = [];
  for (const line of lines) {
    if (line.startsWith("$ ")) groups.push([line]);
    else if (!shown.has(line)) groups.at(-1)?.push(line);
  }
  const left = groups.filter((group) => group.length > 1).map((group) => group.join("\n"));
  return left.length === 0 ? "" : [title, ...left].join("\n");
}

/** True when `text` is a search's output (see {@link SEARCH_SHAPE}): its hits belong to the search-hits section. */
export function isSearchOutput(text: string): boolean {
  return hitLines(text).found > 0;
}

/**
 * The lines of `text` to keep when it is a search's output (see
 * {@link SEARCH_SHAPE}), else none, and how many hits it found: the hit
 * lines; with one hit, its context lines too (the body of the definition
 * looked up): the run of context lines around it whose line numbers go on
 * from the hit's, in order.
 */
function hitLines(text: string): { found: number; hits: string[] } {
  // A tool's frame around the output (`<returncode>0</returncode>`, `<output>`, `</output>`) is not the output's.
  const lines = outputContent(text.split("\n")).filter((line) => line.trim() !== "");
  const hits = lines.filter((line) => HIT.test(line));
  const context = lines.filter((line) => !HIT.test(line) && CONTEXT.test(line));
  if (hits.length === 0 || hits.length + context.length < lines.length * SEARCH_SHAPE) return { found: 0, hits: [] };
  if (hits.length > 1) return { found: hits.length, hits };
  return { found: 1, hits: definitionBody(lines, lines.findIndex((line) => HIT.test(line))) };
}

/** A hit line's path (when it has one) and line number (`12:text`, `src/a.ts:12:text`). */
const HIT_PARTS = /^(?:([^\s:]+):)?(\d+):/;
/** The line number a context line starts with, after its path's `path-` (`12-text`). */
const CONTEXT_NUMBER = /^(\d+)-/;

/**
 * The hit `lines[at]` with the context lines next to it whose numbers go on
 * from its own, under the same path (`grep -A`/`-B`/`-C` prints them so):
 * lines shaped like context lines that are not (a log's `2026-11-29 …`
 * dates, another command's output) stay out.
 */
function definitionBody(lines: readonly string[], at: number): string[] {
  const [, path, number] = HIT_PARTS.exec(lines[at]!)!;
  const hit = Number(number);
  const prefix = path === undefined ? "" : `${path}-`;
  const numberOf = (line: string | undefined): number | null => {
    if (line === undefined || !line.startsWith(prefix) || HIT.test(line)) return null;
    const match = CONTEXT_NUMBER.exec(line.slice(prefix.length));
    return match === null ? null : Number(match[1]);
  };
  let low = at;
  while (numberOf(lines[low - 1]) === hit - (at - low + 1)) low--;
  let high = at;
  while (numberOf(lines[high + 1]) === hit + (high - at + 1)) high++;
  return lines.slice(low, high + 1);
}

/** Each tool call's command (its first string argument) by call id, for the heading of its hits. */
function commandsById(history: readonly Message[]): Map<string, string> {
  const commands = new Map<string, string>();
  for (const message of history) {
    for (const call of message.tool_calls ?? []) {
      const first = argumentValues(call.function.arguments)[0]?.[1];
      commands.set(call.id, first === undefined ? call.function.name : first);
    }
  }
  return commands;
}
