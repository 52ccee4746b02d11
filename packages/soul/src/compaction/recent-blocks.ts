import type { Message } from "@kosong/core";
import { type ConversationBlock, conversationBlocks } from "../conversation/index.js";
import type { TokenCounter } from "../tokens/index.js";
import { isConversationTurn } from "./message-importance.js";

/**
 * The index of the first block of the recent part: the shortest suffix of
 * `blocks` that holds `keepRecent` user and assistant messages (tool results
 * ride with their assistant message; checkpoint markers do not count). 0 when the whole conversation is
 * recent, `blocks.length` when `keepRecent` is 0.
 */
export function recentBlockStart(history: readonly Message[], blocks: readonly ConversationBlock[], keepRecent: number): number {
  let start = blocks.length;
  let counted = 0;
  while (start > 0 && counted < keepRecent) {
    start--;
    if (isConversationTurn(history[blocks[start]!.start]!)) counted++;
  }
  return start;
}

/**
 * The index where a verbatim tail of `history` starts: whole blocks from the
 * end while they fit `maxTokens` and hold at most `keepRecent` user and
 * assistant messages (checkpoint markers not counted), and always at least the last block.
 */
export function recentTailStart(history: readonly Message[], counter: TokenCounter, maxTokens: number, keepRecent: number): number {
  const blocks = conversationBlocks(history);
  let start = history.length;
  let tokens = 0;
  let counted = 0;
  for (let b = blocks.length - 1; b >= 0; b--) {
    const block = blocks[b]!;
    const size = counter.count(history.slice(block.start, block.end));
    const talks = isConversationTurn(history[block.start]!) ? 1 : 0;
    if (start < history.length && (tokens + size > maxTokens || counted + talks > keepRecent)) break;
    start = block.start;
    tokens += size;
    counted += talks;
  }
  return start;
}
