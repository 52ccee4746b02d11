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

/** A streamed Anthropic response. Iterate it once. */
export class AnthropicStreamedMessage implements StreamedMessage {
  private readonly decoder = new AnthropicStreamDecoder();
  private events: AsyncIterable<AnthropicWireEvent> | null;
  private readonly signal: AbortSignal | undefined;

  constructor(events: AsyncIterable<AnthropicWireEvent>, signal?: AbortSignal) {
    this.events = events;
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
    const events = this.events;
    if (!events) throw new ChatProviderError("This Anthropic response stream has already been iterated.");
    this.events = null;
    const inner = events[Symbol.asyncIterator]();
    const decoder = this.decoder;
    const signal = this.signal;
    let finished = false;
    return {
      async next(): Promise<IteratorResult<StreamedMessagePart>> {
        while (!finished) {
          let result: IteratorResult<AnthropicWireEvent>;
          try {
            result = await inner.next();
          } catch (error) {
            finished = true;
            throw convertAnthropicError(error, signal);
          }
          if (result.done) {
            finished = true;
            // The SDK ends its stream quietly when the request is aborted.
            if (signal?.aborted) throw abortError(signal);
            if (!decoder.complete) {
              throw new APIConnectionError("The Anthropic response stream ended before the message was complete.");
            }
            break;
          }
          const part = decoder.decode(result.value);
          if (part !== null) return { done: false, value: part };
        }
        return done;
      },
      async return(): Promise<IteratorResult<StreamedMessagePart>> {
        if (!finished) {
          finished = true;
          await inner.return?.();
        }
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
