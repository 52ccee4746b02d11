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
import type { Message } from "@kosong/core";
import { messageIdentifiers } from "./identifier-index.js";
import { pathKeys } from "./working-set.js";

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

/**
 * The marginal use of each candidate when they are chosen greedily, best
 * use per token first, each key counting only for the first chosen
 * candidate that holds it (and not at all when `covered` holds it): the
 * returned uses are in the order of `candidates`, and ranking by use per
 * token reproduces the greedy order.
 */
export function marginalUses(candidates: readonly UseCandidate[], covered: ReadonlySet<string>): number[] {
  const taken = new Set(covered);
  const uses = candidates.map(() => 0);
  const gain = (c: UseCandidate): number => {
    let use = c.base;
    for (const [key, value] of c.keys) if (!taken.has(key)) use += value;
    return use;
  };
  // Lazy greedy: a candidate's gain only shrinks as more is covered, so a stale bound that still wins is exact once recomputed.
  const heap = new MaxHeap(candidates.map((c, index) => ({ index, density: gain(c) / Math.max(c.tokens, 20) })));
  for (let top = heap.pop(); top !== undefined; top = heap.pop()) {
    const candidate = candidates[top.index]!;
    const use = gain(candidate);
    const density = use / Math.max(candidate.tokens, 20);
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
