import type { GenerationRequest } from "../chat-provider-base.js";
import type { ThinkingEffort, Tool } from "../chat-provider.js";
import type { Message } from "../message.js";

/** One `generate` call as a test provider received it (what a test asserts on). */
export interface ChatProviderCall {
  systemPrompt: string;
  tools: readonly Tool[];
  /** The history at the time of the call (the list is copied; the messages are the caller's). */
  history: readonly Message[];
  /** The thinking effort of the provider copy that was called. */
  thinkingEffort: ThinkingEffort | null;
}

/** The record of a call: the history list is copied so that later appends by the caller do not show. */
export function recordCall({ systemPrompt, tools, history }: GenerationRequest, thinkingEffort: ThinkingEffort | null): ChatProviderCall {
  return { systemPrompt, tools, history: history.slice(), thinkingEffort };
}
