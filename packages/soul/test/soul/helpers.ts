/**
 * Shared setup of the soul-loop tests: a Soul on a real Context (in memory
 * or on a temp JSONL file) with a ScriptedChatProvider, and small builders
 * for echo-DSL scripts.
 */
import path from "node:path";
import { defineTool, SimpleToolset, toolOk, type CallableTool, type Message, type ToolContext } from "@kosong/core";
import { ScriptedChatProvider, type ChatScript, type ScriptedChatProviderOptions } from "@kosong/core/testing";
import { MemoryContextLog, type ContextLog } from "@kosong/context";
import { Context, Soul, type SoulEvent, type SoulOptions, type SoulStream } from "@kosong/soul";
import { expectTypeOf } from "vitest";
import { z } from "zod";
import { tempDir } from "@kosong/test-support";

export { tempDir };

/** Retries without waiting, so tests never sleep. */
export const noWait = { initialDelayMs: 0, maxDelayMs: 0, jitterMs: 0, maxRetryAfterMs: 0 };

/** An echo-DSL tool call line. */
export function call(id: string, name: string, args: Record<string, unknown> = {}): string {
  return `tool_call: ${JSON.stringify({ id, name, arguments: JSON.stringify(args) })}`;
}

/** An echo-DSL script of lines. */
export function script(...lines: string[]): string {
  return lines.join("\n");
}

export interface TestSoulOptions extends Partial<Omit<SoulOptions, "agent" | "provider" | "context">> {
  scripts: ChatScript[];
  tools?: CallableTool[];
  systemPrompt?: string;
  /** A JSONL file in a temp dir instead of an in-memory log. */
  onDisk?: boolean;
  /** The log under the context (instead of a fresh in-memory one). */
  log?: ContextLog;
  streaming?: ScriptedChatProviderOptions;
}

/** A soul over a fresh, restored context. */
export async function testSoul(options: TestSoulOptions) {
  const { scripts, tools = [], systemPrompt = "You are a test agent.", onDisk = false, log, streaming, config, ...rest } = options;
  const provider = new ScriptedChatProvider(scripts, streaming);
  const file = onDisk ? path.join(await tempDir(), "context.jsonl") : null;
  const context = new Context(file ?? log ?? new MemoryContextLog());
  await context.restore();
  const toolset = new SimpleToolset(tools);
  const soul = new Soul({ agent: { name: "test", systemPrompt, toolset }, provider, context, config: { retry: noWait, ...config }, ...rest });
  return { soul, provider, context, toolset, file };
}

/** Every event of a stream and its result. */
export async function collect<R>(stream: SoulStream<R>): Promise<{ events: SoulEvent[]; result: R }> {
  const events: SoulEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, result: await stream.result };
}

/** The event types, in order. */
export function types(events: readonly SoulEvent[]): string[] {
  return events.map((e) => e.type);
}

/** The events of one type. */
export function ofType<K extends SoulEvent["type"]>(events: readonly SoulEvent[], type: K): Extract<SoulEvent, { type: K }>[] {
  return events.filter((e): e is Extract<SoulEvent, { type: K }> => e.type === type);
}

/** The history (of a context, or given) as short strings: `role:text` (tool results `tool[id]:text`, calls `assistant:text+calls(ids)`). */
export function outline(source: Context | readonly Message[]): string[] {
  const history: readonly Message[] = "history" in source ? source.history : source;
  return history.map((m) => {
    const text = m.content.map((p) => (p.type === "text" ? p.text : p.type)).join("");
    if (m.role === "tool") return `tool[${m.tool_call_id}]:${text}`;
    const calls = m.tool_calls?.length ? `+calls(${m.tool_calls.map((c) => c.id).join(",")})` : "";
    return `${m.role}:${text}${calls}`;
  });
}

/** A `Shell` tool that asks for approval ("run command", the command) before it "runs" one, and the commands it ran. */
export function approvingShell(): { shell: CallableTool; ran: string[] } {
  const ran: string[] = [];
  const shell = defineTool({
    name: "Shell",
    description: "Runs a command.",
    parameters: z.object({ command: z.string() }),
    async execute({ command }, { approval }) {
      expectTypeOf(approval).toEqualTypeOf<ToolContext["approval"]>();
      const answer = await approval!.request("run command", command);
      if (!answer.approved) return answer.rejection;
      ran.push(command);
      return toolOk(`ran ${command}`);
    },
  });
  return { shell, ran };
}
