/**
 * Response mapping for the OpenAI Chat Completions API: streamed chunks and
 * complete (non-stream) responses become kosong message parts, usage and a
 * finish reason. Pure: no SDK, no I/O. The wire types are loose on purpose:
 * OpenAI-compatible servers add fields (`reasoning_content`, usage in the
 * choice, top-level `cached_tokens`) and omit others.
 */
import type { FinishReason } from "../chat-provider.js";
import type { StreamedMessagePart, StreamedToolCall, ThinkPart } from "../message.js";
import type { APIStatusError } from "../errors.js";
import { createStatusError } from "../status-error.js";
import type { TokenUsage } from "../token-usage.js";
import type { ChatDialect } from "./openai-chat-request.js";

/** Usage as OpenAI and compatible servers report it. */
export interface ChatWireUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null } | null;
  /** Moonshot (Kimi) reports cached tokens at the top level. */
  cached_tokens?: number | null;
  /** DeepSeek's name for cached prompt tokens. */
  prompt_cache_hit_tokens?: number | null;
}

/** A tool call (or a fragment of one) in a streamed delta. */
export interface ChatWireToolCallDelta {
  index?: number;
  id?: string | null;
  type?: string;
  function?: { name?: string | null; arguments?: string | null } | null;
}

/** One choice of a streamed chunk. */
export interface ChatWireChunkChoice {
  delta?: ({ content?: string | null; tool_calls?: ChatWireToolCallDelta[] | null } & Record<string, unknown>) | null;
  finish_reason?: string | null;
  /** Moonshot sends the stream's usage inside the last choice. */
  usage?: ChatWireUsage | null;
}

/** One `chat.completion.chunk`. */
export interface ChatWireChunk {
  id?: string | null;
  choices?: ChatWireChunkChoice[] | null;
  usage?: ChatWireUsage | null;
}

/** A complete (non-stream) `chat.completion`. */
export interface ChatWireCompletion {
  id?: string | null;
  choices?: Array<{
    message?: ({
      content?: string | null;
      tool_calls?: Array<{ id?: string | null; type?: string; function?: { name: string; arguments?: string | null } }> | null;
    } & Record<string, unknown>) | null;
    finish_reason?: string | null;
  }> | null;
  usage?: ChatWireUsage | null;
}

function count(value: number | null | undefined): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/**
 * kosong usage from a Chat Completions usage: cached tokens (OpenAI
 * `prompt_tokens_details.cached_tokens`, Moonshot top-level `cached_tokens`,
 * DeepSeek `prompt_cache_hit_tokens`) are `input_cache_read`; OpenAI's
 * `prompt_tokens_details.cache_write_tokens` are `input_cache_creation`
 * (upstream ignores them; both are part of `prompt_tokens`, so the input
 * total stays `prompt_tokens`); the rest of the prompt is `input_other`.
 */
export function chatTokenUsage(usage: ChatWireUsage): TokenUsage {
  const prompt = count(usage.prompt_tokens);
  const details = usage.prompt_tokens_details;
  const cached =
    typeof usage.cached_tokens === "number"
      ? usage.cached_tokens
      : typeof details?.cached_tokens === "number"
        ? details.cached_tokens
        : count(usage.prompt_cache_hit_tokens);
  const written = count(details?.cache_write_tokens);
  return {
    input_other: Math.max(0, prompt - cached - written),
    output: count(usage.completion_tokens),
    input_cache_read: cached,
    input_cache_creation: written,
  };
}

/** The normalised finish reason of a Chat Completions `finish_reason`. */
export function chatFinishReason(raw: string | null | undefined): FinishReason | null {
  switch (raw) {
    case null:
    case undefined:
      return null;
    case "stop":
      return "stop";
    case "length":
      return "max_tokens";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "content_filter":
      return "content_filter";
    default:
      return "other";
  }
}

/**
 * `finish_reason: "error"` with no error object (OpenRouter ends a failed
 * generation so): a server error, never a normal end of the message.
 */
function finishedWithError(): APIStatusError {
  return createStatusError(500, '500 server_error: the server ended the response with finish_reason "error"', { errorType: "server_error" });
}

function think(text: string): ThinkPart {
  return { type: "think", think: text, encrypted: null };
}

/** Whether an empty reasoning string is read as an empty think part: Kimi's dialect, or one reading a list of candidate fields. */
function keepsEmptyReasoning(dialect: Pick<ChatDialect, "reasoningKey" | "keepEmptyReasoning">): boolean {
  return dialect.keepEmptyReasoning || Array.isArray(dialect.reasoningKey);
}

/** The reasoning fields to read, as a list. */
function readKeys(key: ChatDialect["reasoningKey"]): readonly string[] {
  return key === null ? [] : typeof key === "string" ? [key] : key;
}

/**
 * The field of `source` that carries reasoning: the first of `keys` holding a
 * non-empty string, else the first holding an empty one, else null.
 */
function reasoningField(source: Record<string, unknown>, keys: readonly string[]): string | null {
  let empty: string | null = null;
  for (const key of keys) {
    const value = source[key];
    if (typeof value !== "string") continue;
    if (value !== "") return key;
    empty ??= key;
  }
  return empty;
}

/**
 * Maps the chunks of one streamed chat completion to kosong parts, keeping
 * the id, usage and finish reason it has seen. Feed every chunk to
 * {@link push}; read the parts it appends.
 *
 * - reasoning (the dialect's reasoning field, or whichever of its candidate
 *   fields a chunk carries, reported once to `onReasoningKey`) becomes think
 *   parts; an empty reasoning string becomes one empty think part when the
 *   dialect keeps empty reasoning (Kimi) or reads candidates, and nothing was
 *   said yet, and is skipped otherwise (so a server that reasons "" gets ""
 *   back, as DeepSeek's thinking mode requires);
 * - content becomes text parts, and so does a refusal (`delta.refusal`), which
 *   makes the finish reason `refusal`;
 * - a tool call starts when an entry brings a function name for a stream
 *   `index` not open yet (or a new id at that index); later entries at that
 *   index are argument fragments (`tool_call_part` with the same `index`), so
 *   parallel calls interleave safely. A call without an id gets a UUID.
 * - usage is taken from the chunk or from its choice (Moonshot); the last
 *   one wins.
 */
export class ChatChunkMapper {
  id: string | null = null;
  usage: TokenUsage | null = null;
  rawFinishReason: string | null = null;

  readonly #reasoningKeys: readonly string[];
  readonly #keepEmptyReasoning: boolean;
  readonly #onReasoningKey: ((key: string) => void) | undefined;
  readonly #openCalls = new Map<number, string>();
  #reasoningKey: string | null = null;
  #refused = false;
  #sawThink = false;
  #sawText = false;

  constructor(dialect: Pick<ChatDialect, "reasoningKey" | "keepEmptyReasoning">, onReasoningKey?: (key: string) => void) {
    this.#reasoningKeys = readKeys(dialect.reasoningKey);
    this.#keepEmptyReasoning = keepsEmptyReasoning(dialect);
    this.#onReasoningKey = onReasoningKey;
  }

  /** Appends the parts of `chunk` to `out`. Throws the server error that `finish_reason: "error"` stands for. */
  push(chunk: ChatWireChunk, out: StreamedMessagePart[]): void {
    if (chunk.id) this.id = chunk.id;
    if (chunk.usage) this.usage = chatTokenUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return;
    if (choice.usage) this.usage = chatTokenUsage(choice.usage);
    if (choice.finish_reason) {
      if (choice.finish_reason === "error") throw finishedWithError();
      this.rawFinishReason = choice.finish_reason;
    }
    const delta = choice.delta;
    if (!delta) return;

    const key = reasoningField(delta, this.#reasoningKeys);
    if (key !== null) {
      const reasoning = delta[key] as string;
      if (reasoning !== "" || (this.#keepEmptyReasoning && !this.#sawThink && !this.#sawText)) {
        this.#sawThink = true;
        out.push(think(reasoning));
        if (key !== this.#reasoningKey) {
          this.#reasoningKey = key;
          this.#onReasoningKey?.(key);
        }
      }
    }
    if (delta.content) {
      this.#sawText = true;
      out.push({ type: "text", text: delta.content });
    }
    const refusal = delta.refusal;
    if (typeof refusal === "string" && refusal !== "") {
      this.#sawText = this.#refused = true;
      out.push({ type: "text", text: refusal });
    }

    const calls = delta.tool_calls;
    if (!calls) return;
    for (const call of calls) {
      const fn = call.function;
      if (!fn) continue;
      const index = typeof call.index === "number" ? call.index : undefined;
      const openId = index === undefined ? undefined : this.#openCalls.get(index);
      if (fn.name && (openId === undefined || (call.id && call.id !== openId))) {
        const id = call.id || crypto.randomUUID();
        const started: StreamedToolCall = { type: "function", id, function: { name: fn.name, arguments: fn.arguments ?? null } };
        if (index !== undefined) {
          started.index = index;
          this.#openCalls.set(index, id);
        }
        out.push(started);
      } else if (fn.arguments) {
        out.push(
          index === undefined
            ? { type: "tool_call_part", arguments_part: fn.arguments }
            : { type: "tool_call_part", arguments_part: fn.arguments, index },
        );
      }
    }
  }

  /** The normalised finish reason seen so far (`refusal` once the model streamed a refusal). */
  get finishReason(): FinishReason | null {
    return this.#refused && this.rawFinishReason !== null ? "refusal" : chatFinishReason(this.rawFinishReason);
  }
}

/** The result of mapping a complete (non-stream) response. */
export interface MappedChatCompletion {
  id: string | null;
  parts: StreamedMessagePart[];
  usage: TokenUsage | null;
  rawFinishReason: string | null;
  /** The normalised finish reason (`refusal` when the message is a refusal). */
  finishReason: FinishReason | null;
}

/**
 * Maps a complete chat completion (its first choice) to kosong parts: the
 * reasoning (as {@link ChatChunkMapper} reads it) as one think part, the content as one text part,
 * then each function tool call.
 */
export function mapChatCompletion(
  completion: ChatWireCompletion,
  dialect: Pick<ChatDialect, "reasoningKey" | "keepEmptyReasoning">,
  onReasoningKey?: (key: string) => void,
): MappedChatCompletion {
  const choice = completion.choices?.[0];
  if (choice?.finish_reason === "error") throw finishedWithError();
  const message = choice?.message;
  const refusal = typeof message?.refusal === "string" && message.refusal !== "" ? message.refusal : null;
  const parts: StreamedMessagePart[] = [];
  if (message) {
    const key = reasoningField(message, readKeys(dialect.reasoningKey));
    if (key !== null) {
      const reasoning = message[key] as string;
      if (reasoning !== "" || keepsEmptyReasoning(dialect)) {
        parts.push(think(reasoning));
        onReasoningKey?.(key);
      }
    }
    if (message.content) parts.push({ type: "text", text: message.content });
    if (refusal !== null) parts.push({ type: "text", text: refusal });
    for (const call of message.tool_calls ?? []) {
      if (call.type !== undefined && call.type !== "function") continue;
      if (!call.function) continue;
      parts.push({
        type: "function",
        id: call.id || crypto.randomUUID(),
        function: { name: call.function.name, arguments: call.function.arguments ?? null },
      });
    }
  }
  return {
    id: completion.id ?? null,
    parts,
    usage: completion.usage ? chatTokenUsage(completion.usage) : null,
    rawFinishReason: choice?.finish_reason ?? null,
    finishReason: refusal !== null ? "refusal" : chatFinishReason(choice?.finish_reason),
  };
}
