/**
 * Where the chunks of a streamed chat completion come from: the response
 * body, read and decoded here (`text/event-stream`, `data:` frames ending
 * with `data: [DONE]`), or, for clients that hand back an SDK stream
 * instead of a raw response, the SDK's own iteration.
 *
 * Reading the body here rather than through the SDK's `Stream` is a matter
 * of speed: the SDK's decoder costs several times a plain SSE split on long
 * streams, and this one hands out every chunk of one network read without a
 * promise per chunk. The request, authentication and HTTP error statuses
 * still go through the SDK.
 */
import { ChatProviderError } from "../errors.js";
import type { HeaderSource } from "../status-error.js";
import type { ChatWireChunk } from "./openai-chat-response.js";
import { errorFromOpenAIErrorObject, type OpenAIErrorObject } from "./openai-errors.js";

/** A pull source of chat completion chunks. */
export interface ChatChunkSource {
  /** The next chunk already read, or undefined (then call {@link fill}). */
  shift(): ChatWireChunk | undefined;
  /**
   * Reads more of the stream; resolves false once it has ended. Rejects with
   * what the transport threw, or with the typed error of an error event.
   */
  fill(): Promise<boolean>;
  /** Stops reading and releases the response. */
  cancel(): Promise<void>;
}

/** Chunks from an SDK stream (or any async iterable of chunks), one per read. */
export class IterableChunkSource implements ChatChunkSource {
  readonly #iterator: AsyncIterator<ChatWireChunk>;
  #next: ChatWireChunk | undefined = undefined;

  constructor(iterable: AsyncIterable<ChatWireChunk>) {
    this.#iterator = iterable[Symbol.asyncIterator]();
  }

  shift(): ChatWireChunk | undefined {
    const next = this.#next;
    this.#next = undefined;
    return next;
  }

  async fill(): Promise<boolean> {
    const result = await this.#iterator.next();
    if (result.done) return false;
    this.#next = result.value;
    return true;
  }

  async cancel(): Promise<void> {
    try {
      await this.#iterator.return?.();
    } catch {
      // Stopping a stream that already failed: nothing left to release.
    }
  }
}

const LF = "\n";

/**
 * Chunks decoded from a Chat Completions SSE body, as the event-stream
 * format defines it: lines end with LF, CRLF or CR; `:` lines are comments;
 * `data:` lines of one event are joined with LF; an event ends at a blank
 * line (or at the end of the body). The stream ends at `data: [DONE]`. An
 * error inside the stream (`event: error`, or a payload with an `error`
 * object or message) ends it with the matching typed error (see
 * `errorFromOpenAIErrorObject`), after the chunks that preceded it; a frame
 * that is not JSON ends it with a {@link ChatProviderError}. Either way the
 * response is released at once.
 */
export class SSEChunkSource implements ChatChunkSource {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #headers: HeaderSource;
  readonly #decoder = new TextDecoder();
  readonly #queue: ChatWireChunk[] = [];
  #head = 0;
  #text = "";
  #event: string | null = null;
  #data: string | null = null;
  #ended = false;
  #failure: Error | null = null;

  constructor(body: ReadableStream<Uint8Array>, headers: HeaderSource) {
    this.#reader = body.getReader();
    this.#headers = headers;
  }

  shift(): ChatWireChunk | undefined {
    if (this.#head >= this.#queue.length) return undefined;
    const chunk = this.#queue[this.#head]!;
    if (++this.#head === this.#queue.length) {
      this.#queue.length = 0;
      this.#head = 0;
    }
    return chunk;
  }

  async fill(): Promise<boolean> {
    while (this.#queue.length === 0) {
      if (this.#failure) throw this.#failure;
      if (this.#ended) return false;
      const { value, done } = await this.#reader.read();
      if (done) {
        this.#feed(this.#decoder.decode(), true);
        this.#ended = true;
      } else {
        this.#feed(this.#decoder.decode(value, { stream: true }), false);
      }
    }
    return true;
  }

  async cancel(): Promise<void> {
    this.#ended = true;
    this.#queue.length = 0;
    this.#head = 0;
    await this.#reader.cancel().catch(() => undefined);
  }

  #feed(text: string, last: boolean): void {
    let buffer = this.#text + text;
    if (buffer.includes("\r")) {
      // A trailing CR may be the first half of a CRLF split across reads.
      const keep = !last && buffer.endsWith("\r");
      const body = keep ? buffer.slice(0, -1) : buffer;
      buffer = body.replace(/\r\n?/g, LF) + (keep ? "\r" : "");
    }
    let start = 0;
    for (let end = buffer.indexOf(LF); end !== -1; end = buffer.indexOf(LF, start)) {
      const line = buffer.slice(start, end);
      start = end + 1;
      this.#line(line);
      if (this.#ended || this.#failure) {
        this.#text = "";
        return;
      }
    }
    this.#text = start === 0 ? buffer : buffer.slice(start);
    if (last) {
      if (this.#text !== "") this.#line(this.#text.replace(/\r$/, ""));
      this.#text = "";
      if (!this.#ended && !this.#failure) this.#dispatch();
    }
  }

  #line(line: string): void {
    if (line === "") return this.#dispatch();
    if (line.charCodeAt(0) === 58 /* ":" comment */) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== "data" && field !== "event") return;
    const value = colon === -1 ? "" : line.charCodeAt(colon + 1) === 32 ? line.slice(colon + 2) : line.slice(colon + 1);
    if (field === "event") this.#event = value;
    else this.#data = this.#data === null ? value : this.#data + LF + value;
  }

  #dispatch(): void {
    const data = this.#data;
    const event = this.#event;
    this.#data = null;
    this.#event = null;
    if (data === null) return;
    if (data === "[DONE]") {
      this.#ended = true;
      void this.#reader.cancel().catch(() => undefined);
      return;
    }
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      // An error event may carry plain text; any other frame must be JSON.
      if (event === "error") return this.#fail(errorFromOpenAIErrorObject({ message: data }, { headers: this.#headers }));
      return this.#fail(new ChatProviderError(`Malformed server-sent event in the response stream: ${data.slice(0, 200)}`));
    }
    const error = typeof payload === "object" && payload !== null ? (payload as { error?: unknown }).error : undefined;
    if (event === "error" || error) {
      // The error object of `{"error": {...}}` (or a bare message string), else the event's payload itself.
      const details = typeof error === "object" && error !== null ? error : typeof error === "string" ? { message: error } : payload;
      return this.#fail(errorFromOpenAIErrorObject(details as OpenAIErrorObject, { headers: this.#headers }));
    }
    this.#queue.push(payload as ChatWireChunk);
  }

  /** Ends the stream with `error` (after the chunks already queued) and releases the response. */
  #fail(error: Error): void {
    this.#failure = error;
    void this.#reader.cancel().catch(() => undefined);
  }
}
