/**
 * The Kimi (Moonshot AI) preset of the Chat Completions provider, with
 * kosong's `kimi` provider rules.
 */
import type { ThinkingEffort, Tool } from "../chat-provider.js";
import type { JsonValue, Message } from "../message.js";
import type { ChatDialect, OpenAIReasoningEffort } from "./openai-chat-request.js";
import { readEnv } from "../read-env.js";
import { OpenAIChatProvider, type OpenAIChatGenerationOptions, type OpenAIChatProviderOptions } from "./openai-chat-provider.js";
import type { ResolvedEndpoint } from "./openai-client.js";

/** Moonshot's default endpoint. */
export const KIMI_DEFAULT_BASE_URL = "https://api.moonshot.ai/v1";

/** Kimi's dialect of Chat Completions. */
export const kimiDialect: ChatDialect = {
  reasoningKey: "reasoning_content",
  keepEmptyReasoning: true,
  toolMessageConversion: null,
  builtinFunctions: true,
  normalizeToolSchemas: true,
};

/**
 * Kimi generation options. `max_tokens` is sent as `max_completion_tokens`
 * (its deprecated alias); nothing caps the completion unless set.
 * `thinking` is Moonshot's thinking config (`{type: "enabled" | "disabled",
 * keep?}`); `reasoning_effort` is the legacy thinking switch, sent only when
 * set here.
 */
export interface KimiGenerationOptions extends OpenAIChatGenerationOptions {
  thinking?: { [key: string]: JsonValue };
  reasoning_effort?: string;
}

/** Options of {@link KimiChatProvider}. */
export interface KimiChatProviderOptions
  extends Omit<OpenAIChatProviderOptions, "reasoningKey" | "toolMessageConversion" | "dialect" | "name" | "generation"> {
  /** Defaults to `kimi-k2-turbo-preview`-style names; required. */
  model: string;
  /** API key; defaults to `KIMI_API_KEY`. */
  apiKey?: string;
  /** Base URL; defaults to `KIMI_BASE_URL`, then `https://api.moonshot.ai/v1`. */
  baseURL?: string;
  generation?: KimiGenerationOptions;
}

function clampKimiEffort(effort: ThinkingEffort): ThinkingEffort {
  return effort === "xhigh" || effort === "max" ? "high" : effort;
}

/** Merges `extra` into `generation`; the `thinking` object is merged field by field. */
function mergeExtraBody(generation: KimiGenerationOptions, extra: Record<string, JsonValue>): KimiGenerationOptions {
  const merged: KimiGenerationOptions = { ...generation, ...extra };
  const patch = extra.thinking;
  if (patch !== undefined && typeof patch === "object" && patch !== null && !Array.isArray(patch)) {
    merged.thinking = { ...generation.thinking, ...patch };
  }
  return merged;
}

/**
 * Kimi / Moonshot AI through its OpenAI-compatible Chat Completions API,
 * with kosong's `kimi` rules:
 *
 * - reasoning travels in `reasoning_content`: streamed reasoning becomes
 *   think parts, and every assistant message that has a think part sends
 *   `reasoning_content` back, even when empty (preserved-thinking backends
 *   require it); an empty `reasoning_content` in a response is kept as an
 *   empty think part;
 * - an assistant message with tool calls and no visible content omits
 *   `content` (Moonshot rejects empty text content);
 * - tools named `$...` are Moonshot builtins (`{type: "builtin_function"}`),
 *   and parameter properties without a type get an inferred one;
 * - `withThinking(effort)` sets `thinking.type` (`enabled`, or `disabled`
 *   for `off`); Kimi has no effort levels beyond on/off, so `xhigh` and `max`
 *   read back as `high`; `reasoning_effort` is only sent when given in the
 *   generation options;
 * - `max_tokens` is sent as `max_completion_tokens`, and no cap is sent by
 *   default;
 * - cached tokens are read from Moonshot's top-level `cached_tokens`, and
 *   the stream's usage also from inside the choice;
 * - the API key and base URL default to `KIMI_API_KEY` and `KIMI_BASE_URL`
 *   (then `https://api.moonshot.ai/v1`).
 */
export class KimiChatProvider extends OpenAIChatProvider {
  /** The effort set with {@link withThinking} (clamped to Kimi's levels), or null. */
  protected kimiEffort: ThinkingEffort | null = null;
  declare protected generation: Readonly<KimiGenerationOptions>;

  constructor(options: KimiChatProviderOptions) {
    super({ ...options, name: "kimi", dialect: kimiDialect });
  }

  protected override resolveEndpoint(options: OpenAIChatProviderOptions): ResolvedEndpoint {
    return { apiKey: options.apiKey ?? readEnv("KIMI_API_KEY"), baseURL: options.baseURL ?? readEnv("KIMI_BASE_URL") ?? KIMI_DEFAULT_BASE_URL };
  }

  protected override missingKeyMessage(): string {
    return "KimiChatProvider needs an API key: pass `apiKey` or set KIMI_API_KEY.";
  }

  /**
   * The effort set with {@link withThinking}; when `reasoning_effort` was
   * given in the generation options instead, the effort it stands for.
   */
  override get thinkingEffort(): ThinkingEffort | null {
    const legacy = this.generation.reasoning_effort;
    if (typeof legacy === "string") return legacy === "low" || legacy === "medium" || legacy === "high" ? legacy : "off";
    return this.kimiEffort;
  }

  /** A copy with thinking switched on (`thinking.type: "enabled"`) or, for `off`, off. */
  override withThinking(effort: ThinkingEffort): this {
    const copy = this.withExtraBody({ thinking: { type: effort === "off" ? "disabled" : "enabled" } });
    copy.kimiEffort = clampKimiEffort(effort);
    return copy;
  }

  /** A copy whose generation options are these merged over the current ones. */
  override withGenerationOptions(options: KimiGenerationOptions): this {
    return super.withGenerationOptions(options);
  }

  /**
   * A copy with extra request-body fields merged over the current ones; the
   * `thinking` object is merged field by field (so `{thinking: {keep:
   * "all"}}` keeps an earlier `thinking.type`), other keys are replaced.
   */
  withExtraBody(extra: Record<string, JsonValue>): this {
    return this.copyWith({ generation: mergeExtraBody(this.generation, extra) });
  }

  protected override reasoningEffortFor(): OpenAIReasoningEffort | undefined {
    return undefined;
  }

  override requestBody(systemPrompt: string, tools: readonly Tool[], history: readonly Message[]): Record<string, unknown> {
    const body = super.requestBody(systemPrompt, tools, history);
    if ("max_tokens" in body) {
      if (!("max_completion_tokens" in body)) body.max_completion_tokens = body.max_tokens;
      delete body.max_tokens;
    }
    return body;
  }
}
