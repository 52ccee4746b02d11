import type { FinishReason, StreamedMessage } from "../chat-provider.js";
import { abortError, ChatProviderError } from "../errors.js";
import type { StreamedMessagePart } from "../message.js";
import type { TokenUsage } from "../token-usage.js";
import { abortableSleep } from "./abortable-sleep.js";
import { chunkPart } from "./chunk-part.js";

/**
 * How the test providers stream their parts. By default each part arrives
 * whole and at once; set `chunkSize` to receive text, think and tool-call
 * arguments in token-sized pieces (merging them gives the same message), and
 * `delayMs` to wait before each piece. An aborted signal ends the stream with
 * an AbortError promptly, also in the middle of a delay.
 */
export interface StreamingOptions {
  /** Split text, think and tool-call arguments into pieces of at most this many characters (a positive integer, e.g. 4). */
  chunkSize?: number | null;
  /** Milliseconds to wait before each piece (default 0). */
  delayMs?: number;
}

/** Everything a {@link ScriptedStreamedMessage} streams. */
export interface ScriptedStreamInit extends StreamingOptions {
  /** The parts, in order. */
  parts: readonly StreamedMessagePart[];
  /** The message id, known from the start. */
  id?: string | null;
  /** The usage, known from the start. */
  usage?: TokenUsage | null;
  /**
   * The finish reason reported once the stream has ended normally; null (the
   * default) reports `tool_calls` when a tool call was streamed, else `stop`.
   */
  finishReason?: FinishReason | null;
  /** Thrown after the parts instead of ending normally (a failure mid-stream). */
  error?: Error | null;
  /** Aborts the stream. */
  signal?: AbortSignal;
}

/** Checks {@link StreamingOptions}, throwing a RangeError for a value that makes no sense. */
export function validateStreamingOptions(options: StreamingOptions): void {
  const { chunkSize, delayMs } = options;
  if (chunkSize != null && !(Number.isInteger(chunkSize) && chunkSize > 0)) {
    throw new RangeError(`chunkSize must be a positive integer, got ${String(chunkSize)}`);
  }
  if (delayMs !== undefined && !(Number.isFinite(delayMs) && delayMs >= 0)) {
    throw new RangeError(`delayMs must be a non-negative number, got ${String(delayMs)}`);
  }
}

/**
 * A {@link StreamedMessage} over a list of parts, as the test providers
 * return it: `id` and `usage` are set from the start, `finishReason` once the
 * stream has ended normally. It can be iterated once.
 */
export class ScriptedStreamedMessage implements StreamedMessage {
  readonly id: string | null;
  readonly usage: TokenUsage | null;
  private finish: FinishReason | null = null;
  private started = false;
  private readonly init: ScriptedStreamInit;

  constructor(init: ScriptedStreamInit) {
    validateStreamingOptions(init);
    this.init = init;
    this.id = init.id ?? null;
    this.usage = init.usage ?? null;
  }

  get finishReason(): FinishReason | null {
    return this.finish;
  }

  get rawFinishReason(): string | null {
    return this.finish;
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamedMessagePart> {
    if (this.started) throw new ChatProviderError("This streamed message has already been iterated; a stream can be read once.");
    this.started = true;
    return this.stream();
  }

  private async *stream(): AsyncGenerator<StreamedMessagePart> {
    const { parts, chunkSize, signal, error } = this.init;
    const delayMs = this.init.delayMs ?? 0;
    let calledTools = false;
    for (const part of parts) {
      if (part.type === "function") calledTools = true;
      const pieces = chunkSize ? chunkPart(part, chunkSize) : [part];
      for (const piece of pieces) {
        if (delayMs > 0) await abortableSleep(delayMs, signal);
        else if (signal?.aborted) throw abortError(signal);
        yield piece;
      }
    }
    if (signal?.aborted) throw abortError(signal);
    if (error) throw error;
    this.finish = this.init.finishReason ?? (calledTools ? "tool_calls" : "stop");
  }
}
