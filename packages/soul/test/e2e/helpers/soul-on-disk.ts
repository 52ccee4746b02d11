/**
 * A Soul as a host builds one: a real provider, a real `context.jsonl` in a
 * temp folder, retries that wait only as long as a server asks.
 */
import path from "node:path";
import { SimpleToolset, type CallableTool, type ChatProvider, type Message } from "@kosong/core";
import { Context, Soul, type SoulConfigInput } from "@kosong/soul";
import { validateConversation } from "@kosong/soul/conversation";
import { tempDir } from "../../soul/helpers.js";

export { collect, ofType, outline } from "../../soul/helpers.js";

export const SYSTEM_PROMPT = "You are the end-to-end test agent.";

/** Backoff without waiting; a server's retry-after is honoured (up to 60 s). */
export const fastRetries: SoulConfigInput["retry"] = { initialDelayMs: 0, maxDelayMs: 0, jitterMs: 0, maxRetryAfterMs: 60_000 };

/** A soul over a new `context.jsonl` (restored, empty) with the given provider and tools. */
export async function soulOnDisk(provider: ChatProvider, tools: CallableTool[] = [], config: SoulConfigInput = {}) {
  const file = path.join(await tempDir(), "context.jsonl");
  const context = new Context(file);
  await context.restore();
  const soul = new Soul({ agent: { name: "e2e", systemPrompt: SYSTEM_PROMPT, toolset: new SimpleToolset(tools) }, provider, context, config: { retry: fastRetries, ...config } });
  return { soul, context, file };
}

/**
 * Closes `context` and reads its file again with a new Context, as the next
 * process would: returns the restored history and system prompt, after
 * checking that the restore repaired nothing and the history is valid
 * (every call answered once, right after it).
 */
export async function reopen(context: Context): Promise<{ history: Message[]; systemPrompt: string | null }> {
  await context.close();
  const again = new Context(context.location);
  const report = await again.restore();
  if (report.interruptedToolCalls.length > 0) throw new Error(`restore answered calls the soul left open: ${JSON.stringify(report.interruptedToolCalls)}`);
  const violations = validateConversation(again.history);
  if (violations.length > 0) throw new Error(`restored history is invalid: ${violations.map((v) => v.message).join("; ")}`);
  const restored = { history: again.history.map((m) => structuredClone(m)), systemPrompt: again.systemPrompt };
  await again.close();
  return restored;
}
