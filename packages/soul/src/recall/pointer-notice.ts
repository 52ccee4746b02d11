/**
 * The user message a compaction (or tool-result aging) leaves in the context
 * to say what it took out and how to get it back: one recall pointer per
 * replaced range, each with what the range held, within a token cap.
 */
import type { Message } from "@kosong/core";
import { estimateMessageTokens } from "../tokens/index.js";
import type { MessageRange } from "./dropped-ranges.js";
import { describeDigest, rangeDigest } from "./range-digest.js";
import { formatPointer } from "./recall-pointer.js";

/** The first line of every pointer notice, by which the soul recognises one. */
export const POINTER_NOTICE_HEAD =
  "<system>Earlier parts of this conversation were compacted: Recall brings one back by its pointer below (or a file's last view by its path).";

/**
 * The notice for `ranges` of `history` (kept as rotation `rotation`) in at
 * most `maxTokens` tokens: it gives each range fewer details (files,
 * commands, errors) until it fits, then names one range spanning them all;
 * null when not even that fits (or there is no range).
 */
export function pointerNotice(history: readonly Message[], rotation: number, ranges: readonly MessageRange[], maxTokens: number): Message | null {
  if (ranges.length === 0) return null;
  const digests = ranges.map((range) => ({ range, digest: rangeDigest(history, range) }));
  for (const items of [3, 2, 1, 0]) {
    const lines = digests.map(({ range, digest }) => `- ${formatPointer({ rotation, ...range })}: ${describeDigest(digest, items)}`);
    const notice = noticeMessage(lines);
    if (estimateMessageTokens(notice) <= maxTokens) return notice;
  }
  const span = { rotation, from: ranges[0]!.from, to: ranges.at(-1)!.to };
  const notice = noticeMessage([`- ${formatPointer(span)}`]);
  return estimateMessageTokens(notice) <= maxTokens ? notice : null;
}

/** True for a message made by {@link pointerNotice}. */
export function isPointerNotice(message: Message): boolean {
  const part = message.content[0];
  return message.role === "user" && part?.type === "text" && part.text.startsWith(POINTER_NOTICE_HEAD);
}

function noticeMessage(lines: readonly string[]): Message {
  return { role: "user", content: [{ type: "text", text: `${POINTER_NOTICE_HEAD}\n${lines.join("\n")}\n</system>` }] };
}
