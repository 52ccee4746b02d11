/**
 * The {@link StreamedMessage} of an Anthropic response: the SDK's event stream
 * decoded part by part, or a complete (non-stream) message replayed as parts.
 */
import type { FinishReason, StreamedMessage } from "../chat-provider.js";
import { APIConnectionError, ChatProviderError, abortError } from "../errors.js";
import type { StreamedMessagePart } from "../message.js";
import type { TokenUsage } from "../token-usage.js";
import { convertAnthropicError } from "./anthropic-errors.js";
import { AnthropicStreamDecoder, anthropicFinishReason, anthropicMessageParts, anthropicTokenUsage } from "./anthropic-response.js";
import type { AnthropicWireEvent, AnthropicWireMessage } from "./anthropic-wire.js";

const done: IteratorReturnResult<undefined> = { done: true, value: undefined };

/** Where the events of a streamed response come from. */
export interface AnthropicStreamSource<T = AnthropicWireEvent> {
  /** The items of the stream: events (the SDK's parsed stream), or anything `toEvent` turns into events. */
  items: AsyncIterable<T>;
  /** The event an item carries, or null to skip it; may throw (an in-stream error). Default: the item is the event. */
  toEvent?: (item: T) => AnthropicWireEvent | null;
  /**
   * Called once when the stream has ended (`abandoned` false), or when it
   * failed or its consumer stopped early (`abandoned` true: the response
   * must be released).
   */
  close?: (abandoned: boolean) => void;
}

/**
 * A streamed Anthropic response. Iterate it once. An abort surfaces as the
 * AbortError (also when the underlying stream just stops), a stream that ends
 * before the message is complete as {@link APIConnectionError}.
 */
export class AnthropicStreamedMessage<T = AnthropicWireEvent> implements StreamedMessage {
  private readonly decoder = new AnthropicStreamDecoder();
  private source: AnthropicStreamSource<T> | null;
  private readonly signal: AbortSignal | undefined;

  constructor(source: AnthropicStreamSource<T> | AsyncIterable<T>, signal?: AbortSignal) {
    this.source = Symbol.asyncIterator in source ? { items: source } : source;
    this.signal = signal;
  }

  get id(): string | null {
    return this.decoder.id;
  }

  get usage(): TokenUsage | null {
    return this.decoder.usage;
  }

  get finishReason(): FinishReason | null {
    return anthropicFinishReason(this.decoder.stopReason);
  }

  get rawFinishReason(): string | null {
    return this.decoder.stopReason;
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamedMessagePart> {
    const source = this.source;
    if (!source) throw new ChatProviderError("This Anthropic response stream has already been iterated.");
    this.source = null;
    const { decoder, signal } = this;
    const toEvent = source.toEvent;
    const close = source.close;
    const inner = source.items[Symbol.asyncIterator]();
    let finished = false;
    const finish = (abandoned: boolean): void => {
      if (finished) return;
      finished = true;
      close?.(abandoned);
    };
    const fail = (error: unknown): never => {
      // A bad event or an error event leaves the response open: stop reading it.
      Promise.resolve()
        .then(() => inner.return?.())
        .catch(() => undefined);
      finish(true);
      throw convertAnthropicError(error, signal);
    };
    // Promise chaining rather than an async function: one hop less per event on the hot path.
    const onResult = (result: IteratorResult<T>): IteratorResult<StreamedMessagePart> | Promise<IteratorResult<StreamedMessagePart>> => {
      if (result.done) {
        finish(false);
        // The SDK ends its stream quietly when the request is aborted.
        if (signal?.aborted) throw abortError(signal);
        if (!decoder.complete) throw new APIConnectionError("The Anthropic response stream ended before the message was complete.");
        return done;
      }
      let part: StreamedMessagePart | null;
      try {
        const event = toEvent ? toEvent(result.value) : (result.value as AnthropicWireEvent);
        part = event === null ? null : decoder.decode(event);
      } catch (error) {
        return fail(error);
      }
      return part !== null ? { done: false, value: part } : inner.next().then(onResult, fail);
    };
    return {
      next: () => (finished ? Promise.resolve(done) : inner.next().then(onResult, fail)),
      return: async () => {
        if (finished) return done;
        try {
          await inner.return?.();
        } catch {
          // The consumer stopped reading: how the stream ends no longer matters.
        }
        finish(true);
        return done;
      },
    };
  }
}

/** A complete (non-stream) Anthropic response, replayed as parts. */
export class AnthropicCompleteMessage implements StreamedMessage {
  readonly id: string | null;
  readonly usage: TokenUsage | null;
  readonly finishReason: FinishReason | null;
  readonly rawFinishReason: string | null;
  private parts: StreamedMessagePart[] | null;

  constructor(message: AnthropicWireMessage) {
    this.id = message.id ?? null;
    this.usage = message.usage ? anthropicTokenUsage(message.usage) : null;
    this.rawFinishReason = message.stop_reason ?? null;
    this.finishReason = anthropicFinishReason(this.rawFinishReason);
    this.parts = anthropicMessageParts(message);
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamedMessagePart> {
    const parts = this.parts;
    if (!parts) throw new ChatProviderError("This Anthropic response has already been iterated.");
    this.parts = null;
    let i = 0;
    return {
      next: async () => (i < parts.length ? { done: false, value: parts[i++]! } : done),
      return: async () => {
        i = parts.length;
        return done;
      },
    };
  }
}
