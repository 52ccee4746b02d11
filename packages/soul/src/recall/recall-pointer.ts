/**
 * Recall pointers: the short names of ranges of an earlier version of the
 * context (a rotation) that a compaction or tool-result aging replaced,
 * `r<rotation>:<first>-<last>` (message indexes in that rotation, both
 * included; `r<rotation>:<index>` for one message).
 */
import type { MessageRange } from "./dropped-ranges.js";

/** A parsed pointer: rotation `rotation`, messages `[from, to)`. */
export interface RecallPointer extends MessageRange {
  rotation: number;
}

const POINTER = /^r(\d{1,9}):(\d{1,9})(?:-(\d{1,9}))?$/;

/** The pointer's text, e.g. `r3:12-40`. */
export function formatPointer({ rotation, from, to }: RecallPointer): string {
  return to - from === 1 ? `r${rotation}:${from}` : `r${rotation}:${from}-${to - 1}`;
}

/** The pointer `text` names (surrounding spaces and brackets ignored), or null when it is not one. */
export function parsePointer(text: string): RecallPointer | null {
  const match = POINTER.exec(text.trim().replace(/^\[|\]$/g, ""));
  if (match === null) return null;
  const rotation = Number(match[1]);
  const from = Number(match[2]);
  const last = match[3] === undefined ? from : Number(match[3]);
  if (rotation < 1 || last < from) return null;
  return { rotation, from, to: last + 1 };
}
