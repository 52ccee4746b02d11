/**
 * An index of the identifiers seen in messages a compaction gives up: the
 * paths, symbols and error lines that later steps look for again. Cheap to
 * build (regular expressions, no LLM), deduplicated, ranked (what the agent
 * and the user wrote counts more than what a tool printed, and recent
 * mentions more than old ones), and cut to a token budget. Identifiers that
 * the kept messages already show are left out.
 */
import type { Message } from "@kosong/core";
import type { Tokenizer } from "../tokens/index.js";
import { messageStrings } from "./message-strings.js";
import { noticeLine } from "./notice-line.js";

/** What kind of identifier an index entry is. */
export type IdentifierKind = "path" | "symbol" | "error";

/** What separates the words that identifiers are read from: white space, quotes, brackets and operators. */
const SEPARATORS = new Set([..." \t\n\r\f\v\"'`()[]{}<>,;=|&*!?#%^\\"]);
/** What every identifier has and plain words do not: a dot, a slash, an underscore or an inner capital (found in one pass). */
const MARK = /[./_]|[a-z0-9][A-Z]|[A-Z]{2}[a-z]/g;
/** A path: two or more segments joined by `/` (optionally followed by `::test` parts). */
const PATH = /^(?:~|\.{1,2})?\/?[\w@.+-]+(?:\/[\w@.+-]+)+(?:::[\w.-]+)*$/;
/** A file name with a short extension that starts with a letter. */
const FILE_NAME = /^[\w-]+\.[a-z][a-z0-9]{0,4}$/;
/** A name, or names joined by dots. */
const NAME = /[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/g;
/** A snake_case or CamelCase word. */
const CODE_WORD = /_|[a-z0-9][A-Z]|^[A-Z]{2,}[a-z]/;
/** Error lines: a line with an `…Error`/`…Exception` name, or one a test runner or linter marks as failing (tested line by line: linear). */
const ERROR = /(?:Error|Exception)\b|\bFAIL(?:ED)?\b|\bERROR\b|\berror(?:\[\w+\])?:/;

/** One identifier and where it is seen. */
interface Entry {
  text: string;
  kind: IdentifierKind;
  score: number;
}

/**
 * The identifiers of `text` with their kinds: paths (without a leading `./`
 * or a trailing `:line`), dotted names and snake_case or CamelCase words of
 * at least 4 characters, and error lines. Linear in the text's length.
 */
export function identifiersOf(text: string): Array<[string, IdentifierKind]> {
  const found: Array<[string, IdentifierKind]> = [];
  // Only the words around a mark are read: plain prose costs one regular-expression scan.
  const isSeparator = (at: number): boolean => SEPARATORS.has(text[at]!) || /\s/.test(text[at]!);
  const words: string[] = [];
  MARK.lastIndex = 0;
  for (let mark = MARK.exec(text); mark !== null; mark = MARK.exec(text)) {
    let start = mark.index;
    while (start > 0 && !isSeparator(start - 1)) start--;
    let end = mark.index + mark[0].length;
    while (end < text.length && !isSeparator(end)) end++;
    MARK.lastIndex = end;
    words.push(text.slice(start, end));
  }
  for (const word of words) {
    if (word.length < 4 || word.length > 300) continue;
    const path = word.replace(/^(?:\.\/)+/, "").replace(/(?::\d+)+:?$/, "").replace(/[.:/]+$/, "");
    // `s/old/new` (sed) is not a path: a one-letter first segment counts only before two more segments (`a/src/x.ts` of a diff).
    const sedLike = /^[a-z]\/[^/]*\/?[^/]*$/.test(path);
    if (path.length >= 4 && /[A-Za-z]/.test(path) && !path.startsWith("//") && !sedLike && (PATH.test(path) || FILE_NAME.test(path))) {
      found.push([path, "path"]);
      if (path.includes("/")) continue;
    }
    for (const [name] of word.matchAll(NAME)) {
      if (name.length < 4) continue;
      const parts = name.split(".");
      if (parts.length > 1 && !FILE_NAME.test(name)) found.push([name, "symbol"]);
      for (const part of parts) if (part.length >= 4 && CODE_WORD.test(part) && /[A-Za-z]/.test(part)) found.push([part, "symbol"]);
    }
  }
  for (const line of text.split("\n")) {
    if (line.length > 2000 || !ERROR.test(line)) continue;
    const trimmed = line.trim();
    if (trimmed.length >= 8) found.push([trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed, "error"]);
  }
  return found;
}

/** What a string longer than this contributes: its first and last parts (a huge log's head and tail name what matters). */
const SCANNED_CHARS = 60_000;

const cache = new WeakMap<Message, ReadonlyArray<[string, IdentifierKind]>>();

/** The identifiers of a message's strings (see {@link messageStrings}), remembered per message object (messages are immutable). */
export function messageIdentifiers(message: Message): ReadonlyArray<[string, IdentifierKind]> {
  let found = cache.get(message);
  if (found === undefined) {
    const strings = messageStrings(message).map((text) =>
      text.length <= SCANNED_CHARS ? text : `${text.slice(0, SCANNED_CHARS * 0.75)}\n${text.slice(-SCANNED_CHARS / 4)}`,
    );
    found = strings.flatMap(identifiersOf);
    cache.set(message, found);
  }
  return found;
}

/** Options of {@link identifierIndex}. */
export interface IdentifierIndexOptions {
  /** The most tokens the index may take. */
  maxTokens: number;
  tokenizer: Tokenizer;
  /** Messages that stay in the context: identifiers they show are left out of the index. */
  kept?: readonly Message[];
}

/**
 * The index of `messages` as markdown (a heading and one line per kind:
 * paths, symbols, error lines), at most `maxTokens` tokens; the empty
 * string when there is nothing to list or no room. Entries are ranked by
 * mentions (x3 in user and assistant messages, tool calls included) plus
 * recency, and listed best first.
 */
export function identifierIndex(messages: readonly Message[], options: IdentifierIndexOptions): string {
  const { tokenizer, maxTokens } = options;
  if (messages.length === 0 || maxTokens < 24) return "";
  const kept = new Set<string>();
  for (const message of options.kept ?? []) for (const [id] of messageIdentifiers(message)) kept.add(id);
  const entries = new Map<string, Entry>();
  messages.forEach((message, position) => {
    const weight = message.role === "tool" ? 1 : 3;
    const recency = (position + 1) / messages.length;
    for (const [id, kind] of messageIdentifiers(message)) {
      if (kept.has(id)) continue;
      const entry = entries.get(id);
      if (entry === undefined) entries.set(id, { text: id, kind, score: weight + recency });
      else entry.score += weight + recency;
    }
  });
  const ranked = [...entries.values()].sort((a, b) => b.score - a.score);
  // Entries are chosen by a cheap cost (characters / 3), the whole counted once; the room is then adjusted to the real count.
  let room = maxTokens;
  let best = "";
  for (let attempt = 0; attempt < 4; attempt++) {
    const text = render(ranked, room);
    if (text === "") return best;
    const tokens = tokenizer.count(text);
    if (tokens <= maxTokens) {
      best = text;
      if (tokens >= maxTokens * 0.9) break;
    }
    room = Math.floor((room * maxTokens * (tokens <= maxTokens ? 0.98 : 0.95)) / tokens);
  }
  return best;
}

const TITLE = "## Identifiers in the removed messages (paths, symbols, errors)";

function render(ranked: readonly Entry[], room: number): string {
  let used = Math.ceil(TITLE.length / 3) + 12;
  const chosen: Record<IdentifierKind, string[]> = { path: [], symbol: [], error: [] };
  for (const entry of ranked) {
    const cost = Math.ceil(entry.text.length / 3) + 1;
    if (used + cost > room) continue;
    used += cost;
    chosen[entry.kind].push(entry.text);
  }
  const lines = [
    chosen.path.length > 0 ? `Paths: ${chosen.path.join(" ")}` : "",
    chosen.symbol.length > 0 ? `Symbols: ${chosen.symbol.join(" ")}` : "",
    // Error lines come from tools: written so that they cannot end the notice early (see noticeLine).
    chosen.error.length > 0 ? `Errors:\n${chosen.error.map((e) => `- ${noticeLine(e, e.length)}`).join("\n")}` : "",
  ].filter((line) => line !== "");
  return lines.length === 0 ? "" : `${TITLE}\n${lines.join("\n")}`;
}
