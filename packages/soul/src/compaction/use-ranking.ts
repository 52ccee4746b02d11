/**
 * Expected use with diminishing returns: what an older piece of the
 * conversation is worth keeping for is partly its topic (what it shares with
 * the working set) and partly the identifiers it holds that nothing kept
 * already shows. A second copy of the same script's boilerplate adds
 * nothing; the one copy that holds a name the agent keeps coming back to is
 * worth its tokens. Ranking greedily by marginal use per token (the names
 * already covered count no more) is the standard answer to such a
 * coverage problem.
 */
import type { Message, ToolCall } from "@kosong/core";
import type { Tokenizer } from "../tokens/index.js";
import { identifiersOf, messageIdentifiers } from "./identifier-index.js";
import { pathKeys, type WorkingSet } from "./working-set.js";

/** The use of one line of a view of a working file, before its recency and what it names of the working set. */
const LINE = 0.3;

/** The share of a line's use that is its join to the line before (see {@link lineKeys}). */
const JOIN = 0.25;

/** The use of one value a tool printed (see {@link valueKeys}), before its recency. */
const VALUE = 0.2;

/** A line-number prefix: `cat -n`, `nl`, `grep -n` (after a path too), `12→`. */
const LINE_NUMBER = /^(?:\s*\d+(?:\t|→| {2,})|(?:[\w./-]+[:-])?\d+[:-])/;

/** True when `call` names a file of the working set (a read, a search or an edit of it). */
export function viewsWorkingFile(call: ToolCall, working: WorkingSet): boolean {
  for (const [id, kind] of identifiersOf(call.function.arguments ?? "")) if (kind === "path" && working.weightOf(id, "path") > 0) return true;
  return false;
}

/** Lines this close (in the view) to a line the kept messages show are its neighbours (see {@link lineKeys}). */
const NEAR = 2;

/** A neighbour of a shown line is worth this many times a line. */
const NEAR_WORTH = 3;

/**
 * The lines of `text` (a view of a working file) as keys: each line without
 * its line-number prefix, trimmed (6 characters at least), worth more the
 * more it names the working set, times `recency`; and each pair of adjacent
 * such lines, worth half as much. A newer view of the same lines holds the
 * same keys, so one kept view makes the other redundant; but only where it
 * shows the same lines together: newer fragments that each hold part of an
 * older view leave it the joins between them (the old text of an edit is
 * contiguous lines, and a split copy of it is no copy). A line within
 * `NEAR` lines of one that `shown` holds (line keys of the views that stay
 * in the context), and not in `shown` itself, is worth `NEAR_WORTH` times
 * as much: an agent that re-read a few lines goes on to edit what surrounds
 * them, and an older, wider view is the one copy of those neighbours in place.
 */
export function lineKeys(text: string, working: WorkingSet, recency: number, shown: ReadonlySet<string> = new Set()): Map<string, number> {
  const keys = new Map<string, number>();
  const lines = text.split("\n").map((line) => ({ line, key: `\u0000${line.replace(LINE_NUMBER, "").trim()}` }));
  const near = new Set<number>();
  lines.forEach(({ key }, index) => {
    if (key.length > 6 && shown.has(key)) for (let d = -NEAR; d <= NEAR; d++) near.add(index + d);
  });
  let previous: { line: string; value: number } | null = null;
  for (const [index, { line, key }] of lines.entries()) {
    const trimmed = key.slice(1);
    if (trimmed.length < 6) continue;
    const value = LINE * recency * (1 + working.lineWeight(line)) * (near.has(index) && !shown.has(key) ? NEAR_WORTH : 1);
    keys.set(key, Math.max(keys.get(key) ?? 0, (1 - JOIN) * value));
    if (previous !== null) {
      const pair = `\u0002${previous.line}\n${trimmed}`;
      keys.set(pair, Math.max(keys.get(pair) ?? 0, (JOIN * (previous.value + value)) / 2));
    }
    previous = { line: trimmed, value };
  }
  return keys;
}

/** The line keys (see {@link lineKeys}) of the views of working files among `messages` (the tool outputs whose call names a working file). */
export function shownLineKeys(messages: readonly Message[], working: WorkingSet): Set<string> {
  const calls = new Map<string, ToolCall>();
  const shown = new Set<string>();
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) calls.set(call.id, call);
    const call = calls.get(message.tool_call_id ?? "");
    if (message.role !== "tool" || call === undefined || !viewsWorkingFile(call, working)) continue;
    const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
    for (const key of lineKeys(text, working, 1).keys()) if (key.startsWith("\u0000")) shown.add(key);
  }
  return shown;
}

/** A line number a tool printed as a prefix (`grep -n`, `cat -n`), and an `…Error: message` text. */
const PRINTED_VALUE = /^(?:[\w./-]+[:-])?(\d{2,})[:-]|^\s*(\d{2,})\t|\b(\w*(?:Error|Exception): [^\n]{3,200})/;

/**
 * The values a tool output printed that later steps write again, as keys:
 * the line numbers of `grep -n` and `cat -n` hits (what the next `sed -n`
 * or edit goes to) and `…Error: message` texts, each worth `VALUE` times
 * `recency`.
 */
export function valueKeys(text: string, recency: number): Map<string, number> {
  const keys = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = PRINTED_VALUE.exec(line);
    const value = match?.[1] ?? match?.[2] ?? match?.[3];
    if (value !== undefined) keys.set(`\u0001${value}`, VALUE * recency);
  }
  return keys;
}

/** One candidate: its tokens, the use it has whatever else is kept, and what it holds that others may hold too. */
export interface UseCandidate {
  tokens: number;
  /** Use that does not depend on what else is kept (its topic). */
  base: number;
  /** What it holds (identifier keys, see {@link identifierKeys}; lines of a file), each with its use when nothing else holds it. */
  keys: ReadonlyMap<string, number>;
}

/** The keys an identifier is matched by: a path by its normalised suffix (see {@link pathKeys}), anything else as it is. */
export function identifierKeys(messages: readonly Message[]): Set<string> {
  const keys = new Set<string>();
  for (const message of messages) {
    for (const [id, kind] of messageIdentifiers(message)) {
      if (kind === "error") continue;
      if (kind === "path") keys.add(pathKeys(id)[0] ?? id);
      else keys.add(id);
    }
  }
  return keys;
}

/**
 * How likely each identifier of `history` is to be used again: the more
 * messages the agent or the user wrote it in (tool outputs count a third),
 * the likelier, and the less the longer ago it was last seen.
 */
export function identifierPriors(history: readonly Message[]): Map<string, number> {
  const mentions = new Map<string, { count: number; last: number }>();
  history.forEach((message, position) => {
    const weight = message.role === "tool" ? 1 / 3 : 1;
    for (const key of identifierKeys([message])) {
      const entry = mentions.get(key);
      if (entry === undefined) mentions.set(key, { count: weight, last: position });
      else {
        entry.count += weight;
        entry.last = position;
      }
    }
  });
  const priors = new Map<string, number>();
  for (const [key, { count, last }] of mentions) {
    const age = history.length - 1 - last;
    priors.set(key, Math.log1p(count) * (0.3 + 0.7 * Math.exp(-age / 60)));
  }
  return priors;
}

/** A candidate of fewer tokens is ranked as if it had this many (see {@link marginalUses}): a few tokens' use per token is no measure. */
export const RANKED_TOKENS_MIN = 20;

/** A cheap token estimate of text (code and logs: about 3.2 characters a token), for ranking only. */
export function roughTokens(text: string): number {
  return Math.ceil(text.length / 3.2);
}

/**
 * The marginal use of each candidate when they are chosen greedily, best
 * use per token first (its tokens counted as `floor` at least), each key
 * counting only for the first chosen candidate that holds it (and not at
 * all when `covered` holds it): the returned uses are in the order of
 * `candidates`, and ranking by use per token reproduces the greedy order.
 */
export function marginalUses(candidates: readonly UseCandidate[], covered: ReadonlySet<string>, floor = RANKED_TOKENS_MIN): number[] {
  const taken = new Set(covered);
  const uses = candidates.map(() => 0);
  const gain = (c: UseCandidate): number => {
    let use = c.base;
    for (const [key, value] of c.keys) if (!taken.has(key)) use += value;
    return use;
  };
  // Lazy greedy: a candidate's gain only shrinks as more is covered, so a stale bound that still wins is exact once recomputed.
  const heap = new MaxHeap(candidates.map((c, index) => ({ index, density: gain(c) / Math.max(c.tokens, floor) })));
  for (let top = heap.pop(); top !== undefined; top = heap.pop()) {
    const candidate = candidates[top.index]!;
    const use = gain(candidate);
    const density = use / Math.max(candidate.tokens, floor);
    const next = heap.peek();
    if (next !== undefined && density < next.density) {
      heap.push({ index: top.index, density });
      continue;
    }
    uses[top.index] = use;
    for (const key of candidate.keys.keys()) taken.add(key);
  }
  return uses;
}

/** A candidate written as text (see {@link chooseByUse}); its `tokens` are an estimate (see {@link roughTokens}). */
export interface TextCandidate extends UseCandidate {
  text: string;
}

/**
 * The candidates chosen greedily by marginal use per token (see
 * {@link marginalUses}, with `floor`) while they fit `room` tokens, best
 * first: each is ranked by its estimated `tokens` and counted by
 * `tokenizer` (plus `separator` tokens for what joins it to the others)
 * only when it may fit. A candidate of no use is not chosen.
 */
export function chooseByUse<T extends TextCandidate>(
  candidates: readonly T[],
  covered: ReadonlySet<string>,
  room: number,
  tokenizer: Tokenizer,
  separator: number,
  floor = RANKED_TOKENS_MIN,
): T[] {
  const uses = marginalUses(candidates, covered, floor);
  let left = room;
  return candidates
    .map((candidate, k) => ({ candidate, density: uses[k]! / Math.max(candidate.tokens, floor) }))
    .filter(({ density }) => density > 0)
    .sort((a, b) => b.density - a.density)
    .flatMap(({ candidate }) => {
      if (candidate.tokens * 0.7 + separator > left) return [];
      const tokens = tokenizer.count(candidate.text) + separator;
      if (tokens > left) return [];
      left -= tokens;
      return [candidate];
    });
}

/** A binary max-heap of candidates by density. */
class MaxHeap {
  readonly #items: Array<{ index: number; density: number }>;

  constructor(items: Array<{ index: number; density: number }>) {
    this.#items = [];
    for (const item of items) this.push(item);
  }

  peek(): { index: number; density: number } | undefined {
    return this.#items[0];
  }

  push(item: { index: number; density: number }): void {
    const items = this.#items;
    items.push(item);
    for (let at = items.length - 1; at > 0; ) {
      const parent = (at - 1) >> 1;
      if (items[parent]!.density >= items[at]!.density) break;
      [items[parent], items[at]] = [items[at]!, items[parent]!];
      at = parent;
    }
  }

  pop(): { index: number; density: number } | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      for (let at = 0; ; ) {
        const left = 2 * at + 1;
        const right = left + 1;
        let best = at;
        if (left < items.length && items[left]!.density > items[best]!.density) best = left;
        if (right < items.length && items[right]!.density > items[best]!.density) best = right;
        if (best === at) break;
        [items[best], items[at]] = [items[at]!, items[best]!];
        at = best;
      }
    }
    return top;
  }
}

/**
 * What a line of the agent's own script or file contents is worth: what it
 * names of the working set, plus the priors of the names in it that
 * `covered` (what is kept for sure) does not show.
 */
export function lineWorth(working: WorkingSet, priors: ReadonlyMap<string, number>, covered: ReadonlySet<string>): (line: string) => number {
  return (line) => {
    let weight = working.lineWeight(line);
    for (const [id, kind] of identifiersOf(line)) {
      const key = kind === "path" ? (pathKeys(id)[0] ?? id) : id;
      if (kind !== "error" && !covered.has(key)) weight += priors.get(key) ?? 0;
    }
    return weight;
  };
}
