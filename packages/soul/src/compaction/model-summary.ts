/**
 * The LLM call of the summarising strategies, guarded: a summary that is
 * empty, only whitespace, only tool calls or thinking, reads like an error
 * or a refusal, or is only an acknowledgement, and a model that fails, give
 * no summary but a note, so the strategy falls back to the extractive
 * summary instead of wiping the conversation or ending the turn. Aborts
 * propagate.
 */
import { type ChatProvider, extractText, generate, isAbortError, type Message, type TokenUsage } from "@kosong/core";
import { ACKNOWLEDGEMENT, ERROR_LIKE } from "./auto-summary-prompt.js";
import { COMPACTION_SYSTEM_PROMPT, summaryRequest } from "./summary-request.js";

/** What {@link modelSummary} returns: the text, or null with why. */
export type ModelSummary = { text: string; usage: TokenUsage | null } | { text: null; usage: TokenUsage | null; note: string };

/**
 * The provider's summary of `messages` with `prompt`, or null and a note when
 * it is unusable or the call fails (not when aborted, nor when
 * `throwModelError` says to throw).
 */
export async function modelSummary(
  provider: ChatProvider,
  messages: readonly Message[],
  prompt: string,
  options: { instruction?: string; signal?: AbortSignal; throwModelError?: (error: unknown) => boolean },
): Promise<ModelSummary> {
  let usage: TokenUsage | null = null;
  let why: string;
  try {
    const result = await generate(provider, COMPACTION_SYSTEM_PROMPT, [], [summaryRequest(messages, prompt, options.instruction)], { signal: options.signal });
    usage = result.usage;
    const text = extractText(result.message).trim();
    if (text === "") why = result.message.tool_calls?.length ? "it answered with tool calls only" : "it was blank";
    else if (ERROR_LIKE.test(text)) why = "it reads like an error or a refusal";
    else if (ACKNOWLEDGEMENT.test(text)) why = "it is only an acknowledgement";
    else return { text, usage };
  } catch (error) {
    if (isAbortError(error) || options.signal?.aborted || options.throwModelError?.(error) === true) throw error;
    why = `the model failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  return { text: null, usage, note: `The ${provider.modelName} summary was unusable (${why}); fell back to the extractive summary.` };
}
