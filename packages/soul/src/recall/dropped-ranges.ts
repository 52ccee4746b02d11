/**
 * Which messages of a history a compaction did not keep as they were: the
 * ranges a recall pointer names.
 */
import type { Message } from "@kosong/core";

/** Messages `[from, to)` of a history, gone from (or changed in) a compaction's output. */
export interface MessageRange {
  from: number;
  /** Exclusive. */
  to: number;
}

/**
 * The maximal runs of messages of `history` that `output` does not hold
 * unchanged (the same object, or the same JSON): dropped, summarised, or
 * replaced by a stub or an excerpt.
 */
export function droppedRanges(history: readonly Message[], output: readonly Message[]): MessageRange[] {
  const kept = new Set<Message>(output);
  const keptJson = new Set(output.map((message) => JSON.stringify(message)));
  const ranges: MessageRange[] = [];
  history.forEach((message, i) => {
    if (kept.has(message) || keptJson.has(JSON.stringify(message))) return;
    const last = ranges.at(-1);
    if (last !== undefined && last.to === i) last.to = i + 1;
    else ranges.push({ from: i, to: i + 1 });
  });
  return ranges;
}
