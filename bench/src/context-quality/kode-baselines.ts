/**
 * Kode-cli's retention strategies as seed 004 describes them, ported to the
 * kosong message model as faithfully as it allows, as baselines for the
 * context-quality benchmark. In Kode-cli tool results are user messages, so
 * here `tool` messages count as `user` where Kode-cli looks at the type.
 * Their known flaws are kept on purpose: message counts instead of tokens,
 * substring matches, tool pairs cut apart, an assistant-role summary first.
 */
import { extractText, type Message } from "@kosong/core";

/** Kode-cli's `type === 'user'`: user messages and tool results. */
const isKodeUser = (m: Message): boolean => m.role === "user" || m.role === "tool";

/** `preserveRecentMessages`: the last `max(3, maxTokens / 200)` messages. */
export function kodePreserveRecent(messages: readonly Message[], maxTokens: number): Message[] {
  const preserveCount = Math.max(3, Math.floor(maxTokens / 200));
  return messages.slice(-preserveCount);
}

function kodeIsImportant(message: Message): boolean {
  if (isKodeUser(message)) return true;
  if (message.role === "assistant") {
    const text = extractText(message).toLowerCase();
    return ["error", "failed", "warning", "critical", "issue"].some((word) => text.includes(word));
  }
  return false;
}

/** `preserveImportantMessages`: every important message before the last 5, then the last 5. */
export function kodePreserveImportant(messages: readonly Message[]): Message[] {
  const recentCount = Math.min(5, messages.length);
  const important = messages.slice(0, messages.length - recentCount).filter(kodeIsImportant);
  return [...important, ...messages.slice(-recentCount)];
}

/** `smartCompressionStrategy`: an assistant message counting what was dropped, then the last `min(10, 30 %)` messages (with `slice(-0)`'s quirk). */
export function kodeSmartCompression(messages: readonly Message[]): Message[] {
  const recentCount = Math.min(10, Math.floor(messages.length * 0.3));
  const recent = messages.slice(-recentCount);
  const older = messages.slice(0, -recentCount);
  const users = older.filter(isKodeUser).length;
  const assistants = older.filter((m) => m.role === "assistant").length;
  const toolUses = older.reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0);
  const topics = new Set<string>();
  for (const m of older) {
    if (!isKodeUser(m)) continue;
    const text = extractText(m);
    if (text.includes("error") || text.includes("bug")) topics.add("debugging");
    if (text.includes("implement") || text.includes("create")) topics.add("implementation");
    if (text.includes("explain")) topics.add("explanation");
    if (text.includes("fix")) topics.add("problem-solving");
  }
  const summary =
    `Previous conversation included ${users} user messages and ${assistants} assistant responses, with ${toolUses} tool invocations. ` +
    `Key topics: ${[...topics].join(", ") || "general discussion"}.`;
  const text = `[CONVERSATION SUMMARY - ${older.length} messages compressed]\n\n${summary}\n\n[END SUMMARY - Recent context follows...]`;
  return [{ role: "assistant", content: [{ type: "text", text }] }, ...recent];
}
