/**
 * What the recent messages work on: the files, symbols and error lines they
 * name, weighted by who named them and how recently. Strategies rank older
 * content by it (content about the working set is what the next steps use)
 * and cut bulky tool outputs down to the lines that name it.
 *
 * Paths are matched by their normalised suffix (the last two segments, and
 * the file name), so an absolute path in one call and a relative one in a
 * later message are the same file.
 */
import type { Message } from "@kosong/core";
import { messageIdentifiers } from "./identifier-index.js";

/** The keys a path is known by: its last two segments and its file name (a leading `./` or `/abs/olute/` prefix does not matter). */
export function pathKeys(path: string): string[] {
  const segments = path.split("/").filter((s) => s !== "" && s !== "." && s !== "..");
  const name = segments.at(-1);
  if (name === undefined) return [];
  return segments.length >= 2 ? [`${segments.at(-2)}/${name}`, name] : [name];
}

/** The words of a line that may name something in the working set: runs of identifier, dot, slash and dash characters. */
const WORD = /[\w$][\w$./-]*/g;

/** The working set of some recent messages (see the module comment). */
export class WorkingSet {
  readonly #weights = new Map<string, number>();

  /**
   * The working set of `recent` (oldest first): each identifier weighs 2 when
   * an assistant or user message names it (tool calls included), 1 when only
   * a tool output shows it, times 1 to 2 by recency.
   */
  constructor(recent: readonly Message[]) {
    recent.forEach((message, position) => {
      const weight = (message.role === "tool" ? 1 : 2) * (1 + (position + 1) / recent.length);
      const seen = new Set<string>();
      for (const [id, kind] of messageIdentifiers(message)) {
        const keys = kind === "path" ? pathKeys(id) : kind === "symbol" ? [id] : [];
        for (const key of keys) seen.add(key);
      }
      for (const key of seen) this.#weights.set(key, Math.max(this.#weights.get(key) ?? 0, weight));
    });
  }

  /** True when the recent messages name nothing. */
  get empty(): boolean {
    return this.#weights.size === 0;
  }

  /** The weight of one identifier or path (0 when the working set does not hold it). */
  weightOf(id: string, kind: "path" | "symbol" | "error"): number {
    if (kind === "error") return 0;
    if (kind === "symbol") return this.#weights.get(id) ?? 0;
    let best = 0;
    for (const key of pathKeys(id)) best = Math.max(best, this.#weights.get(key) ?? 0);
    return best;
  }

  /** How much `message` is about the working set: the weights of the distinct identifiers it shares with it. */
  relevance(message: Message): number {
    const seen = new Set<string>();
    let total = 0;
    for (const [id, kind] of messageIdentifiers(message)) {
      if (seen.has(id)) continue;
      seen.add(id);
      total += this.weightOf(id, kind);
    }
    return total;
  }

  /** The weight of the best word of `line` (0 when it names nothing of the working set). */
  lineWeight(line: string): number {
    let best = 0;
    WORD.lastIndex = 0;
    for (const [raw] of line.matchAll(WORD)) {
      const word = raw.replace(/[.:/-]+$/, "");
      if (word.length < 4) continue;
      best = Math.max(best, this.#weights.get(word) ?? 0);
      if (word.includes("/")) for (const key of pathKeys(word)) best = Math.max(best, this.#weights.get(key) ?? 0);
      if (word.includes(".")) for (const part of word.split(".")) if (part.length >= 4) best = Math.max(best, this.#weights.get(part) ?? 0);
    }
    return best;
  }
}
