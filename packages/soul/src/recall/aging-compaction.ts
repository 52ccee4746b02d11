/**
 * Tool-result aging as the soul runs it in place of a compaction: the
 * aging of a history that brings it under a target, as a compaction result.
 */
import type { Message } from "@kosong/core";
import type { CompactionResult } from "../compaction/index.js";
import { estimateTokens } from "../tokens/index.js";
import { formatPointer } from "./recall-pointer.js";
import { ageToolResults, type ToolResultAgingOptions } from "./tool-result-aging.js";

/** The strategy name aging is reported under (`CompactionBegin`). */
export const TOOL_RESULT_AGING = "tool-result-aging";

/**
 * The history aged (rotation `rotation` keeps the outputs whole) so that
 * the context, `tokens` now, comes to at most `target` tokens; null when
 * aging cannot make that much room (a full compaction is needed then).
 */
export function agingCompaction(history: readonly Message[], rotation: number, tokens: number, target: number, options: ToolResultAgingOptions): CompactionResult | null {
  // What the count holds besides the messages (the system prompt, tool definitions) stays.
  const need = tokens - target;
  if (need <= 0) return null;
  const aged = ageToolResults(history, rotation, need, options);
  if (aged.aged.length === 0 || aged.saved < need) return null;
  const pointers = aged.aged.map((i) => formatPointer({ rotation, from: i, to: i + 1 })).join(", ");
  const note = `Aged ${aged.aged.length} old tool output${aged.aged.length === 1 ? "" : "s"} (about ${aged.saved} tokens) into excerpts; Recall brings them back (${pointers}).`;
  return {
    messages: aged.messages,
    usage: null,
    details: { kept: history.length - aged.aged.length, dropped: 0, stubs: aged.aged.length, filesRecovered: [], summarized: false, notes: [note], tokensAfter: estimateTokens(aged.messages) },
  };
}
