/**
 * A conversation cut into blocks that a compaction may keep or drop whole:
 * cutting only between blocks never separates a tool result from its call.
 */
import type { Message } from "@kosong/core";

/** A run of messages `[start, end)` of a conversation that belong together. */
export interface ConversationBlock {
  start: number;
  end: number;
  /** The role of the block's first message: an assistant block holds the assistant message and its tool results. */
  role: Message["role"];
}

/**
 * Splits `messages` into blocks: each user or system message alone, each
 * assistant message together with the tool messages that follow it. A tool
 * message with no assistant message before it forms a block of its own.
 */
export function conversationBlocks(messages: readonly Message[]): ConversationBlock[] {
  const blocks: ConversationBlock[] = [];
  let index = 0;
  while (index < messages.length) {
    const role = messages[index]!.role;
    let end = index + 1;
    if (role === "assistant" || role === "tool") while (end < messages.length && messages[end]!.role === "tool") end++;
    blocks.push({ start: index, end, role });
    index = end;
  }
  return blocks;
}
