/**
 * Mapping of Anthropic Messages responses (streamed events and complete
 * messages) to kosong message parts, usage and finish reasons.
 *
 * - text blocks and `text_delta` become text parts;
 * - `thinking` blocks become think parts; the `signature_delta` that closes a
 *   streamed block becomes a signature-only think part (`{think: "",
 *   encrypted}`) that attaches to the open think when merged;
 * - `redacted_thinking` becomes a think part with empty text and the
 *   redacted `data` as `encrypted` (how kosong stores it);
 * - `tool_use` starts a tool call tagged with the block's stream `index`, and
 *   each `input_json_delta` is a fragment for that index; a call whose input
 *   stays empty ends with the arguments `{}`; a call cut short by
 *   `max_tokens` keeps its truncated arguments;
 * - usage: `message_delta` usage is cumulative, so its counters replace those
 *   of `message_start` one by one as they appear;
 * - `stop_reason: "refusal"` is the finish reason `refusal`; when nothing
 *   visible came before it, a {@link refusalMarker} text part stands for the
 *   refusal.
 */
import type { FinishReason } from "../chat-provider.js";
import type { StreamedMessagePart, StreamedToolCall } from "../message.js";
import type { HeaderSource } from "../status-error.js";
import type { TokenUsage } from "../token-usage.js";
import { anthropicStreamError } from "./anthropic-errors.js";
import type { AnthropicWireContentBlock, AnthropicWireEvent, AnthropicWireMessage, AnthropicWireUsage } from "./anthropic-wire.js";

const finishReasons: Record<string, FinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  tool_use: "tool_calls",
  max_tokens: "max_tokens",
  model_context_window_exceeded: "max_tokens",
  refusal: "refusal",
  pause_turn: "other",
};

/** The normalised finish reason of an Anthropic `stop_reason` (null when there is none). */
export function anthropicFinishReason(stopReason: string | null | undefined): FinishReason | null {
  if (stopReason == null) return null;
  return finishReasons[stopReason] ?? "other";
}

/** One server-sent event as the SDK's SSE parser reads it (`Stream.rawEvents`). */
export interface AnthropicServerSentEvent {
  event: string | null;
  data: string;
}

/**
 * The stream event a server-sent event carries, with the SDK's rules: frames
 * without an event name and `ping`s carry none; `event: error` throws the
 * typed error it stands for (see `anthropicStreamError`); otherwise the data
 * is the event's JSON (a `SyntaxError` when it is not).
 */
export function anthropicEventOfSse(sse: AnthropicServerSentEvent, headers: HeaderSource): AnthropicWireEvent | null {
  const name = sse.event;
  if (name === null || name === "ping") return null;
  if (name === "error") {
    let body: unknown = sse.data;
    try {
      body = JSON.parse(sse.data);
    } catch {
      // keep the raw text
    }
    throw anthropicStreamError(body, headers);
  }
  return sse.data ? (JSON.parse(sse.data) as AnthropicWireEvent) : null;
}

/** Usage in kosong's counters: uncached input, output, cache reads, cache writes. */
export function anthropicTokenUsage(usage: AnthropicWireUsage): TokenUsage {
  return {
    input_other: usage.input_tokens ?? 0,
    output: usage.output_tokens ?? 0,
    input_cache_read: usage.cache_read_input_tokens ?? 0,
    input_cache_creation: usage.cache_creation_input_tokens ?? 0,
  };
}

function toolCall(block: AnthropicWireContentBlock, args: string | null, index?: number): StreamedToolCall {
  const call: StreamedToolCall = { type: "function", id: block.id ?? "", function: { name: block.name ?? "", arguments: args } };
  if (index !== undefined) call.index = index;
  return call;
}

/**
 * The text that stands for a refusal that came without any text (Anthropic's
 * `stop_reason: "refusal"` on an empty message), so the caller has an answer
 * to show rather than an empty response.
 */
export const refusalMarker = "[The model declined to respond (stop_reason: refusal).]";

function isVisible(part: StreamedMessagePart): boolean {
  return part.type !== "think" && (part.type !== "text" || part.text !== "");
}

/** The parts of a complete (non-stream) response message, in block order. */
export function anthropicMessageParts(message: AnthropicWireMessage): StreamedMessagePart[] {
  const parts: StreamedMessagePart[] = anthropicBlockParts(message);
  if (message.stop_reason === "refusal" && !parts.some(isVisible)) parts.push({ type: "text", text: refusalMarker });
  return parts;
}

function anthropicBlockParts(message: AnthropicWireMessage): StreamedMessagePart[] {
  const parts: StreamedMessagePart[] = [];
  for (const block of message.content ?? []) {
    switch (block.type) {
      case "text":
        parts.push({ type: "text", text: block.text ?? "" });
        break;
      case "thinking":
        parts.push({ type: "think", think: block.thinking ?? "", encrypted: block.signature || null });
        break;
      case "redacted_thinking":
        parts.push({ type: "think", think: "", encrypted: block.data ?? "" });
        break;
      case "tool_use":
        parts.push(toolCall(block, JSON.stringify(block.input ?? {})));
        break;
      default:
        break;
    }
  }
  return parts;
}

function hasInput(input: unknown): boolean {
  if (typeof input !== "object" || input === null) return false;
  for (const _ in input) return true;
  return false;
}

/**
 * Turns the events of one streamed response into kosong parts, one event at a
 * time, and collects the message id, usage and stop reason on the way.
 */
export class AnthropicStreamDecoder {
  /** The message id from `message_start`. */
  id: string | null = null;
  /** The raw `stop_reason` from `message_delta`. */
  stopReason: string | null = null;
  /** True once `message_stop` (or a `message_delta` with a stop reason) arrived. */
  complete = false;
  /** True once a part the caller can show (text, a tool call) was decoded. */
  private visible = false;
  private counters: AnthropicWireUsage | null = null;
  /** Stream index -> whether that open tool_use block has received any argument text. */
  private readonly toolArgs = new Map<number, boolean>();

  /** Usage so far (final once the stream has ended), or null before `message_start`. */
  get usage(): TokenUsage | null {
    return this.counters ? anthropicTokenUsage(this.counters) : null;
  }

  /** The part one event carries, or null for events that carry none. */
  decode(event: AnthropicWireEvent): StreamedMessagePart | null {
    const part = this.decodeEvent(event);
    if (part !== null && !this.visible && isVisible(part)) this.visible = true;
    return part;
  }

  private decodeEvent(event: AnthropicWireEvent): StreamedMessagePart | null {
    switch (event.type) {
      case "content_block_delta":
        return this.delta(event);
      case "content_block_start":
        return this.start(event);
      case "content_block_stop":
        return this.stop(event.index);
      case "message_start":
        this.id = event.message?.id ?? null;
        this.counters = { ...event.message?.usage };
        return null;
      case "message_delta":
        if (event.usage) this.mergeUsage(event.usage);
        if (event.delta?.stop_reason != null) {
          this.stopReason = event.delta.stop_reason;
          this.complete = true;
          // A refusal with nothing said: a marker, so the caller has an answer to show.
          if (this.stopReason === "refusal" && !this.visible) return { type: "text", text: refusalMarker };
        }
        return null;
      case "message_stop":
        this.complete = true;
        return null;
      default:
        return null;
    }
  }

  private delta(event: AnthropicWireEvent): StreamedMessagePart | null {
    const delta = event.delta;
    switch (delta?.type) {
      case "text_delta":
        return { type: "text", text: delta.text ?? "" };
      case "thinking_delta":
        return { type: "think", think: delta.thinking ?? "", encrypted: null };
      case "input_json_delta": {
        const fragment = delta.partial_json ?? "";
        if (!fragment) return null;
        if (event.index !== undefined) this.toolArgs.set(event.index, true);
        return event.index === undefined
          ? { type: "tool_call_part", arguments_part: fragment }
          : { type: "tool_call_part", arguments_part: fragment, index: event.index };
      }
      case "signature_delta":
        return { type: "think", think: "", encrypted: delta.signature ?? "" };
      default:
        return null;
    }
  }

  private start(event: AnthropicWireEvent): StreamedMessagePart | null {
    const block = event.content_block;
    switch (block?.type) {
      case "text":
        return block.text ? { type: "text", text: block.text } : null;
      case "thinking":
        return { type: "think", think: block.thinking ?? "", encrypted: block.signature || null };
      case "redacted_thinking":
        return { type: "think", think: "", encrypted: block.data ?? "" };
      case "tool_use": {
        // Compatible servers may send the whole input here instead of deltas.
        const args = hasInput(block.input) ? JSON.stringify(block.input) : null;
        if (event.index !== undefined) this.toolArgs.set(event.index, args !== null);
        return toolCall(block, args, event.index);
      }
      default:
        return null;
    }
  }

  private stop(index: number | undefined): StreamedMessagePart | null {
    if (index === undefined) return null;
    const hadArgs = this.toolArgs.get(index);
    if (hadArgs === undefined) return null;
    this.toolArgs.delete(index);
    return hadArgs ? null : { type: "tool_call_part", arguments_part: "{}", index };
  }

  private mergeUsage(usage: AnthropicWireUsage): void {
    const counters = (this.counters ??= {});
    if (usage.input_tokens != null) counters.input_tokens = usage.input_tokens;
    if (usage.output_tokens != null) counters.output_tokens = usage.output_tokens;
    if (usage.cache_read_input_tokens != null) counters.cache_read_input_tokens = usage.cache_read_input_tokens;
    if (usage.cache_creation_input_tokens != null) counters.cache_creation_input_tokens = usage.cache_creation_input_tokens;
  }
}
