/** Which user messages the user typed, as opposed to the soul's own `<system>…</system>` messages. */
import { extractText, type Message } from "@kosong/core";

/** True for a user message the user typed: not the soul's own messages, which are a `<system>…</system>` tag and nothing else. */
export function isUserTyped(message: Message): boolean {
  if (message.role !== "user") return false;
  const text = extractText(message, "\n").trim();
  return !(text.startsWith("<system>") && text.endsWith("</system>") && text.indexOf("<system>", 1) < 0);
}
