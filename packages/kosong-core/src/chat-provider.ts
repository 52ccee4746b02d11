/**
 * The chat-provider protocol: what every provider (OpenAI, Anthropic, the
 * test providers, your own) implements, and what `generate`/`step` consume.
 */
import type { JsonValue, Message, StreamedMessagePart } from "./message.js";
import type { TokenUsage } from "./token-usage.js";

/**
 * How hard the model should think. Providers map it to their API
 * (OpenAI `reasoning_effort`, Anthropic thinking budgets/effort) and clamp
 * levels the model does not support; `off` disables thinking where possible.
 */
export type ThinkingEffort = "off" | "low" | "medium" | "high" | "xhigh" | "max";

/** A JSON Schema object describing a tool's parameters. */
export type JsonSchema = { [key: string]: JsonValue };

/** A tool as the model sees it: a name, a description and a JSON Schema for its arguments. */
export interface Tool {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/**
 * Why the model stopped, normalised across APIs (`raw` keeps the provider's
 * own value). `refusal`: the model declined to answer (OpenAI's `refusal`,
 * Anthropic's `stop_reason: "refusal"`); its message holds the refusal text
 * or a marker saying so, never nothing.
 */
export type FinishReason = "stop" | "tool_calls" | "max_tokens" | "content_filter" | "refusal" | "error" | "other";

/** Per-call options of {@link ChatProvider.generate}. */
export interface ProviderGenerateOptions {
  /** Aborts the request and the stream; the stream then throws an AbortError. */
  signal?: AbortSignal;
}

/**
 * One streamed response. Iterate it once to receive the parts in order; `id`,
 * `usage` and `finishReason` are filled in as the stream reports them and are
 * final once iteration has finished. Errors during iteration are
 * `ChatProviderError`s (or an AbortError).
 */
export interface StreamedMessage extends AsyncIterable<StreamedMessagePart> {
  readonly id: string | null;
  readonly usage: TokenUsage | null;
  readonly finishReason?: FinishReason | null;
  /** The provider's own finish/stop reason string, when it sent one. */
  readonly rawFinishReason?: string | null;
}

/** A chat model behind some API. */
export interface ChatProvider {
  /** The provider's name, e.g. `openai`, `anthropic`, `kimi`, `echo`. */
  readonly name: string;
  /** The model the provider calls. */
  readonly modelName: string;
  /** The thinking effort set with {@link withThinking}, or null when never set. */
  readonly thinkingEffort: ThinkingEffort | null;
  /**
   * The model's context window in tokens, when the provider knows it (the
   * SDK providers look their model up in `modelContextWindows` unless given
   * `maxContextSize`); undefined or null when unknown. An agent loop
   * compacts against it.
   */
  readonly maxContextSize?: number | null;
  /**
   * Starts one generation. Resolves once the response has started (HTTP
   * errors reject here as `ChatProviderError`s); the parts then stream from
   * the returned {@link StreamedMessage}. `history` is lent for the call:
   * the caller (the soul's loop) may append to the same array once the
   * stream has ended, so a provider that keeps the history beyond the call
   * (a recording test double, a cache) keeps a copy.
   */
  generate(
    systemPrompt: string,
    tools: readonly Tool[],
    history: readonly Message[],
    options?: ProviderGenerateOptions,
  ): Promise<StreamedMessage>;
  /** A copy of this provider that thinks with `effort` (a plain copy when the model cannot think). */
  withThinking(effort: ThinkingEffort): ChatProvider;
}
