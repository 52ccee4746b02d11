/**
 * How much of a recalled text the model gets: the lines that mention the
 * query (with a few lines around each, numbered), or the whole text; either
 * way cut to a token cap, keeping its start and its end.
 */
import { charsPerTokenTokenizer } from "../tokens/index.js";
import { truncateText } from "../compaction/index.js";

const CONTEXT_LINES = 2;

/** `text` excerpted for `query` (when given and found) and cut to `maxTokens`. */
export function recallExcerpt(text: string, maxTokens: number, query?: string): { text: string; matched: boolean } {
  const needle = query?.trim().toLowerCase() ?? "";
  if (needle === "") return { text: truncateText(text, maxTokens, charsPerTokenTokenizer, true), matched: false };
  const lines = text.split("\n");
  const keep = new Set<number>();
  lines.forEach((line, i) => {
    if (!line.toLowerCase().includes(needle)) return;
    for (let j = Math.max(0, i - CONTEXT_LINES); j <= Math.min(lines.length - 1, i + CONTEXT_LINES); j++) keep.add(j);
  });
  if (keep.size === 0) return { text: truncateText(text, maxTokens, charsPerTokenTokenizer, true), matched: false };
  const out: string[] = [];
  let last = -1;
  for (const i of [...keep].sort((a, b) => a - b)) {
    if (last !== -1 && i > last + 1) out.push("…");
    out.push(`${i + 1}: ${lines[i]}`);
    last = i;
  }
  return { text: truncateText(out.join("\n"), maxTokens, charsPerTokenTokenizer, false), matched: true };
}
