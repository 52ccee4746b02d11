/**
 * Which part of the context breakdown a message counts in: tool results,
 * the summaries and notices compaction writes, or the conversation's
 * messages.
 */
import { extractText, type Message } from "@kosong/core";
import { COMPACTION_OUTPUT_PREFIX } from "../compaction/index.js";
import { POINTER_NOTICE_HEAD } from "../recall/pointer-notice.js";
import type { MessageKind } from "../tokens/index.js";

/** The notice of what a compaction removed (`droppedNotice`). */
const NOTICE = /^<system>(?:\d+ earlier messages? (?:was|were) removed|Some tool outputs were elided)/;

/** `toolResults` for a tool message, `summaries` for a compaction's summary or notice, else `messages`. */
export function messageKind(message: Message): MessageKind {
  if (message.role === "tool") return "toolResults";
  const first = message.role === "user" ? extractText(message).trimStart() : "";
  return first.startsWith(COMPACTION_OUTPUT_PREFIX) || first.startsWith(POINTER_NOTICE_HEAD) || NOTICE.test(first) ? "summaries" : "messages";
}
