/**
 * The {@link StreamedMessage}s of the Chat Completions provider: a streamed
 * completion (parts handed out as its chunks arrive) and a complete one
 * (its parts served as a stream).
 */
import type { FinishReason, StreamedMessage } from "../chat-provider.js";
import { abortError, APIConnectionError, ChatProviderError, KosongError } from "../errors.js";
import type { StreamedMessagePart } from "../message.js";
import type { TokenUsage } from "../token-usage.js";
import { IterableChunkSource, SSEChunkSource, type ChatChunkSource } from "./openai-chat-chunk-source.js";
import type { ChatDialect } from "./openai-chat-request.js";
import { ChatChunkMapper, mapChatCompletion, type ChatWireChunk, type ChatWireCompletion } from "./openai-chat-response.js";
import { convertOpenAIError, errorFromOpenAIErrorObject, type OpenAIErrorObject } from "./openai-errors.js";

/**
 * The message of a successful streaming response: its SSE body is read as
 * chunks; a server that answered with a complete JSON body instead (some
 * OpenAI-compatible servers ignore `stream: true`) is read as a complete
 * completion.
 */
export async function streamedMessageFromResponse(
  response: Response,
  dialect: ChatDialect,
  signal: AbortSignal | undefined,
  onReasoningKey?: (key: string) => void,
): Promise<StreamedMessage> {
  const type = response.headers.get("content-type") ?? "";
  if (type.includes("application/json")) {
    const body = (await response.json()) as ChatWireCompletion & { error?: OpenAIErrorObject };
    if (body.error && typeof body.error === "object") throw errorFromOpenAIErrorObject(body.error, { headers: response.headers });
    return new ChatCompletionMessage(body, dialect, onReasoningKey);
  }
  if (!response.body) throw new ChatProviderError("The streaming response has no body.");
  return new ChatStreamedMessage(new SSEChunkSource(response.body, response.headers), dialect, signal, onReasoningKey);
}

/** The message of an SDK stream (a client that returns its own stream rather than a raw response). */
export function streamedMessageFromChunks(
  chunks: AsyncIterable<ChatWireChunk>,
  dialect: ChatDialect,
  signal: AbortSignal | undefined,
  onReasoningKey?: (key: string) => void,
): StreamedMessage {
  return new ChatStreamedMessage(new IterableChunkSource(chunks), dialect, signal, onReasoningKey);
}

/** A streamed chat completion. */
export class ChatStreamedMessage implements StreamedMessage {
  readonly #source: ChatChunkSource;
  readonly #mapper: ChatChunkMapper;
  readonly #signal: AbortSignal | undefined;
  #consumed = false;

  /** `onReasoningKey` learns the field the server sends its reasoning in (see {@link ChatChunkMapper}). */
  constructor(source: ChatChunkSource, dialect: ChatDialect, signal: AbortSignal | undefined, onReasoningKey?: (key: string) => void) {
    this.#source = source;
    this.#mapper = new ChatChunkMapper(dialect, onReasoningKey);
    this.#signal = signal;
  }

  get id(): string | null {
    return this.#mapper.id;
  }

  get usage(): TokenUsage | null {
    return this.#mapper.usage;
  }

  get finishReason(): FinishReason | null {
    return this.#mapper.finishReason;
  }

  get rawFinishReason(): string | null {
    return this.#mapper.rawFinishReason;
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamedMessagePart> {
    if (this.#consumed) throw new ChatProviderError("A StreamedMessage can be iterated only once.");
    this.#consumed = true;
    return new ChatPartIterator(this.#source, this.#mapper, this.#signal);
  }
}

const iterationDone: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * Hands out the parts of the chunks already read without waiting, and
 * reads more only when they are used up: one settled promise per part, no
 * generator machinery, on the hottest path of a streamed response.
 */
class ChatPartIterator implements AsyncIterator<StreamedMessagePart, undefined> {
  readonly #source: ChatChunkSource;
  readonly #mapper: ChatChunkMapper;
  readonly #signal: AbortSignal | undefined;
  readonly #parts: StreamedMessagePart[] = [];
  #index = 0;
  #finished = false;

  constructor(source: ChatChunkSource, mapper: ChatChunkMapper, signal: AbortSignal | undefined) {
    this.#source = source;
    this.#mapper = mapper;
    this.#signal = signal;
  }

  next(): Promise<IteratorResult<StreamedMessagePart, undefined>> {
    const parts = this.#parts;
    for (;;) {
      if (this.#index < parts.length) return Promise.resolve({ done: false, value: parts[this.#index++]! });
      if (this.#finished) return Promise.resolve(iterationDone);
      parts.length = 0;
      this.#index = 0;
      const chunk = this.#source.shift();
      if (chunk === undefined) return this.#read();
      try {
        this.#mapper.push(chunk, parts);
      } catch (error) {
        const failure = KosongError.isInstance(error) ? error : new ChatProviderError(`Unexpected chunk in the response stream: ${String(error)}`, { cause: error });
        return this.#fail(failure);
      }
    }
  }

  async #read(): Promise<IteratorResult<StreamedMessagePart, undefined>> {
    let more: boolean;
    try {
      more = await this.#source.fill();
    } catch (error) {
      return this.#fail(error);
    }
    if (!more) {
      this.#finished = true;
      this.#checkComplete();
      return iterationDone;
    }
    return this.next();
  }

  /** Ends the iteration with the kosong error for `error`, releasing the response. */
  #fail(error: unknown): Promise<never> {
    this.#finished = true;
    this.#parts.length = 0;
    this.#source.cancel().catch(() => undefined);
    return Promise.reject(convertOpenAIError(error, this.#signal));
  }

  /** The consumer stopped early: release the response. */
  async return(): Promise<IteratorResult<StreamedMessagePart, undefined>> {
    if (!this.#finished) {
      this.#finished = true;
      this.#parts.length = 0;
      await this.#source.cancel();
    }
    return iterationDone;
  }

  #checkComplete(): void {
    // An aborted body can end quietly: an abort must not pass for a complete message.
    if (this.#signal?.aborted) throw abortError(this.#signal);
    if (this.#mapper.rawFinishReason === null) {
      throw new APIConnectionError("The response stream ended before the response was complete (no finish_reason).");
    }
  }
}

/** A complete (non-stream) chat completion, served as a stream of its parts. */
export class ChatCompletionMessage implements StreamedMessage {
  readonly id: string | null;
  readonly usage: TokenUsage | null;
  readonly rawFinishReason: string | null;
  readonly finishReason: FinishReason | null;
  readonly #parts: StreamedMessagePart[];

  constructor(completion: ChatWireCompletion, dialect: ChatDialect, onReasoningKey?: (key: string) => void) {
    const mapped = mapChatCompletion(completion, dialect, onReasoningKey);
    this.id = mapped.id;
    this.usage = mapped.usage;
    this.rawFinishReason = mapped.rawFinishReason;
    this.finishReason = mapped.finishReason;
    this.#parts = mapped.parts;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamedMessagePart> {
    yield* this.#parts;
  }
}
