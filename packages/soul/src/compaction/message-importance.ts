/**
 * Which messages a balanced compaction keeps longest. Kode's rule with
 * its flaws fixed: whole words instead of substrings ("error" no longer
 * matches "terrorist", "issue" no longer matches every "tissue"), decisions
 * count, and only what the user typed counts as a user message (tool
 * results and the soul's own `<system>` messages do not).
 */
import { extractText, type Message } from "@kosong/core";
import { isUserTyped } from "../context/is-user-typed.js";
import { checkpointMessageId } from "../context/index.js";

/** Words that make an assistant message important: errors, failures, warnings and decisions. */
export const IMPORTANT_WORDS =
  /\b(errors?|exceptions?|fail(s|ed|ing|ures?)?|warn(s|ed|ings?)?|critical|broken|crash(es|ed)?|decid(e|ed|es|ing)|decisions?|chose|chosen|choose)\b/i;

export { isUserTyped };

/**
 * Important: the system prompt (any system message), every message the user
 * typed, and assistant messages whose text reports an error, a failure, a
 * warning or a decision (whole words, case-insensitive).
 */
export function isImportantMessage(message: Message): boolean {
  if (message.role === "system") return true;
  if (message.role === "user") return isUserTyped(message);
  if (message.role === "assistant") return IMPORTANT_WORDS.test(extractText(message, "\n"));
  return false;
}

/** True for a tool result that reports an error (core's `<system>ERROR…` form). */
export function isErrorResult(message: Message): boolean {
  if (message.role !== "tool") return false;
  const first = message.content[0];
  return first?.type === "text" && first.text.startsWith("<system>ERROR");
}

/**
 * True for a user or assistant message that counts among the recent
 * messages a strategy keeps (`keepRecent`): not a visible checkpoint marker
 * (`<system>CHECKPOINT n</system>`, written with D-Mail on), which is the
 * runtime's, not a turn of the conversation.
 */
export function isConversationTurn(message: Message): boolean {
  return (message.role === "user" || message.role === "assistant") && checkpointMessageId(message) === null;
}
