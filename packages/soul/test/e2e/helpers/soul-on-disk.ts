/**
 * A Soul as a host builds one: a real provider, a real `context.jsonl` in a
 * temp folder, retries that wait only as long as a server asks.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { SimpleToolset, type CallableTool, type ChatProvider, type Message } from "@kosong/core";
import { Context, Soul, validateConversation, type SoulConfigInput, type SoulEvent, type SoulStream } from "@kosong/soul";
import { afterAll } from "vitest";

export const SYSTEM_PROMPT = "You are the end-to-end test agent.";

const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh temp folder, removed after the test file. */
export async function tempDir(prefix = "kosong-soul-e2e-"): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

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

/** Every event of a stream, and its result. */
export async function collect<R>(stream: SoulStream<R>): Promise<{ events: SoulEvent[]; result: R }> {
  const events: SoulEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, result: await stream.result };
}

/** The events of one type. */
export function ofType<K extends SoulEvent["type"]>(events: readonly SoulEvent[], type: K): Extract<SoulEvent, { type: K }>[] {
  return events.filter((e): e is Extract<SoulEvent, { type: K }> => e.type === type);
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

/** The history as short strings: `role:text`, tool results `tool[id]:text`, calls `+calls(ids)`. */
export function outline(history: readonly Message[]): string[] {
  return history.map((m) => {
    const text = m.content.map((p) => (p.type === "text" ? p.text : p.type)).join("");
    if (m.role === "tool") return `tool[${m.tool_call_id}]:${text}`;
    const calls = m.tool_calls?.length ? `+calls(${m.tool_calls.map((c) => c.id).join(",")})` : "";
    return `${m.role}:${text}${calls}`;
  });
}
