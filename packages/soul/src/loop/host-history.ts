/**
 * The conversation as a host sees it: the context's history without the
 * soul's own visible checkpoint messages (`<system>CHECKPOINT n</system>`,
 * shown to the model when D-Mail is on). `soul.history` is this view, and
 * `soul.rewrite(index)` addresses messages by their index in it, and
 * `soul.checkpoints` count their messages in it.
 */
import type { Message } from "@kosong/core";
import { checkpointMessageId, type Context, type ContextCheckpoint } from "../context/index.js";

/** The host's view of a history: its messages and where each sits in `context.history`. */
export interface HostHistory {
  /** The messages, without checkpoint markers. */
  messages: Message[];
  /** `positions[i]` is the index in `context.history` of `messages[i]`. */
  positions: number[];
}

/** The history of `context` without the visible message of any of its checkpoints. */
export function hostHistory(context: Context): HostHistory {
  const history = context.history;
  const markers = new Set(context.checkpoints.filter((c) => checkpointMessageId(history[c.messageCount]) === c.id).map((c) => c.messageCount));
  const view: HostHistory = { messages: [], positions: [] };
  history.forEach((message, i) => {
    if (markers.has(i)) return;
    view.messages.push(message);
    view.positions.push(i);
  });
  return view;
}

/**
 * The checkpoints of `context` with `messageCount` counted in the host's
 * view (checkpoint messages not counted), so `history.slice(0, messageCount)`
 * of that view is what a revert to the checkpoint keeps.
 */
export function hostCheckpoints(context: Context): ContextCheckpoint[] {
  const { positions } = hostHistory(context);
  let before = 0;
  return context.checkpoints.map((checkpoint) => {
    while (before < positions.length && positions[before]! < checkpoint.messageCount) before++;
    return { ...checkpoint, messageCount: before };
  });
}
