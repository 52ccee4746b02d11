/**
 * Where a context's tokens go: the system prompt (and the project files in
 * it), the tool definitions, the conversation's messages, tool results and
 * summaries, the reserve kept for the answer, and what is free.
 */
import type { Message, Tool } from "@kosong/core";
import { TokenCounter } from "./token-counter.js";
import { charsPerTokenTokenizer } from "./tokenizer.js";

/**
 * The context window broken down, in tokens. The parts are estimates
 * scaled to the provider's last count when there is one (so they add up to
 * `used`); `free` and `window` are null when the window size is unknown.
 */
export interface ContextBreakdown {
  /** The system prompt without the project files. */
  systemPrompt: number;
  /** The project files the host put in the system prompt (`AgentSpec.projectContext`). */
  projectFiles: number;
  /** The definitions of the tools the model is offered (MCP tools included). */
  tools: number;
  /** User and assistant messages. */
  messages: number;
  /** Tool results (aged ones included). */
  toolResults: number;
  /** Compaction summaries and notices (what was removed, recall pointers). */
  summaries: number;
  /** All of the above: the context's size now. */
  used: number;
  /** Tokens kept free for the model's answer (`reservedContextSize`). */
  reserve: number;
  /** The window less what is used and the reserve (0 at least), null without a window. */
  free: number | null;
  /** The context window, null when unknown. */
  window: number | null;
  /** The size at which compaction is due, null without a window. */
  threshold: number | null;
}

/** Which part of the breakdown a message of the conversation counts in. */
export type MessageKind = "messages" | "toolResults" | "summaries";

/** What {@link contextBreakdown} measures. */
export interface BreakdownInput {
  systemPrompt: string;
  projectContext?: string;
  tools: readonly Tool[];
  history: readonly Message[];
  /** The provider's last count of the whole context (null or 0: none yet). */
  providerTokens: number | null;
  window: number | null;
  reserve: number;
  threshold: number | null;
  /** Which part a message counts in (default: tool results by role, every other message a message). */
  kindOf?: (message: Message) => MessageKind;
}

const counter = new TokenCounter({ tokenizer: charsPerTokenTokenizer });

/** The breakdown of `input` (see {@link ContextBreakdown}). */
export function contextBreakdown(input: BreakdownInput): ContextBreakdown {
  const text = (value: string): number => charsPerTokenTokenizer.count(value);
  const project = input.projectContext !== undefined && input.systemPrompt.includes(input.projectContext) ? text(input.projectContext) : 0;
  const parts = {
    systemPrompt: Math.max(0, text(input.systemPrompt) - project),
    projectFiles: project,
    tools: input.tools.reduce((sum, tool) => sum + text(tool.name) + text(tool.description) + text(JSON.stringify(tool.parameters)), 0),
    messages: 0,
    toolResults: 0,
    summaries: 0,
  };
  const kindOf = input.kindOf ?? ((message: Message): MessageKind => (message.role === "tool" ? "toolResults" : "messages"));
  for (const message of input.history) parts[kindOf(message)] += counter.count([message]);
  const estimated = Object.values(parts).reduce((a, b) => a + b, 0);
  const scaled = input.providerTokens !== null && input.providerTokens > 0 && estimated > 0 ? scale(parts, input.providerTokens / estimated) : parts;
  const used = Object.values(scaled).reduce((a, b) => a + b, 0);
  const free = input.window === null ? null : Math.max(0, input.window - used - input.reserve);
  return { ...scaled, used, reserve: input.reserve, free, window: input.window, threshold: input.threshold };
}

function scale<T extends Record<string, number>>(parts: T, factor: number): T {
  return Object.fromEntries(Object.entries(parts).map(([key, value]) => [key, Math.round(value * factor)])) as T;
}
