/**
 * Which user messages of a conversation the user wrote: not the soul's
 * `<system>` notes (checkpoint markers, compaction output) and not the files
 * a compaction recovered (`**Recovered file: PATH**` ... `<system>Recovered
 * automatically after a compaction.</system>`), which are user messages too.
 */
import { extractText, type Message } from "@kosong/core";

/** The path of a compaction's recovered-file message, else null. */
export function recoveredFilePath(message: Message): string | null {
  if (message.role !== "user") return null;
  const text = extractText(message).trim();
  if (!/<system>Recovered automatically after a compaction[^<]*<\/system>$/.test(text)) return null;
  return /^\*\*Recovered file: (.+?)\*\*/.exec(text)?.[1] ?? null;
}

/** Whether `message` is a prompt the user wrote. */
export function isUserPrompt(message: Message): boolean {
  return message.role === "user" && !extractText(message).trim().startsWith("<system>") && recoveredFilePath(message) === null;
}
