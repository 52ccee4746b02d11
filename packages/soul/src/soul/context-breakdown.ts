/**
 * Where a context's tokens go: the system prompt (and the project files in
 * it), the tool definitions, the conversation's messages, tool results and
 * summaries, the reserve kept for the answer, and what is free.
 */
import { extractText, type Message, type Tool } from "@kosong/core";
import { COMPACTION_OUTPUT_PREFIX } from "../compaction/index.js";
import { POINTER_NOTICE_HEAD } from "../recall/pointer-notice.js";
import { charsPerTokenTokenizer, TokenCounter } from "../tokens/index.js";

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
}

const counter = new TokenCounter({ tokenizer: charsPerTokenTokenizer });
const NOTICE = /^<system>(?:\d+ earlier messages? (?:was|were) removed|Some tool outputs were elided)/;

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
  for (const message of input.history) parts[kindOf(message)] += counter.count([message]);
  const estimated = Object.values(parts).reduce((a, b) => a + b, 0);
  const scaled = input.providerTokens !== null && input.providerTokens > 0 && estimated > 0 ? scale(parts, input.providerTokens / estimated) : parts;
  const used = Object.values(scaled).reduce((a, b) => a + b, 0);
  const free = input.window === null ? null : Math.max(0, input.window - used - input.reserve);
  return { ...scaled, used, reserve: input.reserve, free, window: input.window, threshold: input.threshold };
}

function kindOf(message: Message): "messages" | "toolResults" | "summaries" {
  if (message.role === "tool") return "toolResults";
  const first = message.role === "user" ? extractText(message).trimStart() : "";
  return first.startsWith(COMPACTION_OUTPUT_PREFIX) || first.startsWith(POINTER_NOTICE_HEAD) || NOTICE.test(first) ? "summaries" : "messages";
}

function scale<T extends Record<string, number>>(parts: T, factor: number): T {
  return Object.fromEntries(Object.entries(parts).map(([key, value]) => [key, Math.round(value * factor)])) as T;
}
