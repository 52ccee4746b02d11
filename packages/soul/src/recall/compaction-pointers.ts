/**
 * Recall pointers around a compaction's output: the ranges of the old
 * conversation the output no longer holds as they were, named in one notice
 * after the output, inside the room the compaction made (a compaction with
 * pointers never returns more tokens than it was given).
 */
import type { Message } from "@kosong/core";
import { estimateTokens } from "../tokens/index.js";
import { droppedRanges, type MessageRange } from "./dropped-ranges.js";
import { pointerNotice } from "./pointer-notice.js";

/** The most tokens a notice may take: this share of the compacted history... */
const NOTICE_SHARE = 0.03;
/** ...but at least this many (when the compaction made that much room)... */
const NOTICE_MIN_TOKENS = 160;
/** ...and at most this many. */
const NOTICE_MAX_TOKENS = 800;

/** A compaction's output with its pointer notice. */
export interface PointedOutput {
  /** `output`, then the notice when there is one. */
  messages: Message[];
  /** The ranges of the history the output replaced. */
  ranges: MessageRange[];
  /** The notice (null: nothing was replaced, or no room for it). */
  notice: Message | null;
}

/**
 * `output` followed by the pointer notice naming the ranges of `history`
 * it replaced, in rotation `rotation`. The notice takes at most
 * `min(tokens(history) - tokens(output), max(160, 3 % of tokens(history)), 800)`
 * estimated tokens, so it never makes the result larger than the history.
 */
export function withCompactionPointers(history: readonly Message[], output: readonly Message[], rotation: number): PointedOutput {
  const ranges = droppedRanges(history, output);
  const before = estimateTokens(history);
  const room = Math.min(before - estimateTokens(output), Math.max(NOTICE_MIN_TOKENS, Math.ceil(before * NOTICE_SHARE)), NOTICE_MAX_TOKENS);
  const notice = room > 0 ? pointerNotice(history, rotation, ranges, room) : null;
  return { messages: notice === null ? [...output] : [...output, notice], ranges, notice };
}
