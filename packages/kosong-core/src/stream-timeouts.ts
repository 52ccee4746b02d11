/**
 * Time limits of one LLM call: how long the response may take to start, and
 * how long its stream may stay silent. A server that accepts a request and
 * never answers, or one that trickles a byte now and then without ever
 * completing an event, would otherwise hold a turn for as long as the
 * transport lets it (the SDKs' 10 minutes, undici's 5-minute body timeout
 * restarted by every byte). Both limits end the call with a retryable
 * {@link APITimeoutError}.
 */
import type { StreamedMessage } from "./chat-provider.js";
import { abortError, APITimeoutError } from "./errors.js";
import type { StreamedMessagePart } from "./message.js";

/** Time limits of an LLM call, in ms; `null` (or `Infinity`) means no limit of kosong's own. */
export interface StreamTimeouts {
  /**
   * From sending the request until the response starts (its headers): a
   * connection that cannot be made, a server that accepts and never
   * answers. For a response that is not streamed, the whole answer must
   * arrive in this time.
   */
  firstByteMs?: number | null;
  /**
   * Between two streamed parts, and from the start of the response to its
   * first part: a stream that stalls. A part is a whole event (a text delta,
   * a tool-call fragment): bytes that complete no event do not count.
   */
  idleMs?: number | null;
}

/**
 * The providers' defaults, chosen for slow reasoning models: a response
 * starts within 2 minutes (streaming APIs send their headers at once, so
 * this is the time to connect and be admitted), and a stream may be silent
 * for 5 minutes (a reasoning model streaming over Chat Completions sends
 * nothing while it thinks, for minutes at high effort). A response that is
 * not streamed gets {@link DEFAULT_UNSTREAMED_TIMEOUT_MS} to arrive whole.
 */
export const DEFAULT_STREAM_TIMEOUTS: Readonly<Required<StreamTimeouts>> = Object.freeze({ firstByteMs: 120_000, idleMs: 300_000 });

/** The time a response that is not streamed has to arrive whole by default (10 minutes, the SDKs' own default). */
export const DEFAULT_UNSTREAMED_TIMEOUT_MS = 600_000;

/** Timers fire at most after 2^31-1 ms; a longer limit is no limit. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A limit as a number of ms, or null for none: `undefined` gives
 * `fallback`, `null` and `Infinity` give null.
 * @throws RangeError for zero, a negative number or NaN.
 */
export function timeoutMs(name: string, value: number | null | undefined, fallback: number | null): number | null {
  if (value === undefined) return fallback;
  if (value === null || value === Number.POSITIVE_INFINITY) return null;
  if (typeof value !== "number" || !(value > 0)) throw new RangeError(`${name} must be a positive number of milliseconds, or null for none; got ${String(value)}`);
  return value > MAX_TIMER_MS ? null : value;
}

/** Resolved limits (null: none). */
export interface ResolvedStreamTimeouts {
  firstByteMs: number | null;
  idleMs: number | null;
}

/**
 * Limits from `timeouts` over `defaults`.
 * @throws RangeError for a limit that is not a positive number or null.
 */
export function resolveStreamTimeouts(timeouts: StreamTimeouts | undefined, defaults: ResolvedStreamTimeouts): ResolvedStreamTimeouts {
  return {
    firstByteMs: timeoutMs("timeouts.firstByteMs", timeouts?.firstByteMs, defaults.firstByteMs),
    idleMs: timeoutMs("timeouts.idleMs", timeouts?.idleMs, defaults.idleMs),
  };
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(3))} s`;

/**
 * Starts a generation under `limits`. `start` gets the signal to hand to the
 * request: it aborts when the caller's `signal` does, or when a limit
 * passes (then the request and its stream are torn down). Rejects with
 * {@link APITimeoutError} when the response does not start in time; the
 * returned message's iteration throws it when the stream stalls. `label`
 * names the call in the messages (e.g. `openai gpt-4.1`).
 */
export async function startWithTimeouts(
  label: string,
  limits: ResolvedStreamTimeouts,
  signal: AbortSignal | undefined,
  start: (signal: AbortSignal | undefined) => Promise<StreamedMessage>,
): Promise<StreamedMessage> {
  if (limits.firstByteMs === null && limits.idleMs === null) return start(signal);
  if (signal?.aborted) throw abortError(signal);
  const controller = new AbortController();
  const forward = (): void => controller.abort(signal?.reason);
  signal?.addEventListener("abort", forward, { once: true });
  const release = (): void => signal?.removeEventListener("abort", forward);
  let message: StreamedMessage;
  try {
    message = await withLimit(start(controller.signal), limits.firstByteMs, controller, () => new APITimeoutError(`${label}: no response within ${seconds(limits.firstByteMs!)}`));
  } catch (error) {
    release();
    throw error;
  }
  if (limits.idleMs === null) {
    release();
    return message;
  }
  return new IdleLimitedMessage(message, limits.idleMs, controller, release, label);
}

/** `promise`, or the timeout error if `ms` pass first (then `controller` aborts, so the work stops). */
function withLimit<T>(promise: Promise<T>, ms: number | null, controller: AbortController, error: () => APITimeoutError): Promise<T> {
  if (ms === null) return promise;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const timeout = error();
      controller.abort(timeout);
      reject(timeout);
    }, ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (reason: unknown) => {
        clearTimeout(timer);
        // After the limit passed, the work's own failure (its abort) is not news.
        if (!controller.signal.aborted || !APITimeoutError.isInstance(controller.signal.reason)) reject(reason);
      },
    );
  });
}

/**
 * A streamed message whose iteration throws {@link APITimeoutError} when no
 * part arrives for `idleMs`. Cheap per part (a clock read and a flag, no timer): one
 * timer re-arms itself for what is left of the limit since the last part,
 * and when the limit has passed it aborts the request, which ends the
 * pending read; that failure is then reported as the timeout.
 */
class IdleLimitedMessage implements StreamedMessage {
  readonly #inner: StreamedMessage;
  readonly #idleMs: number;
  readonly #controller: AbortController;
  readonly #release: () => void;
  readonly #label: string;

  constructor(inner: StreamedMessage, idleMs: number, controller: AbortController, release: () => void, label: string) {
    this.#inner = inner;
    this.#idleMs = idleMs;
    this.#controller = controller;
    this.#release = release;
    this.#label = label;
  }

  get id() {
    return this.#inner.id;
  }

  get usage() {
    return this.#inner.usage;
  }

  get finishReason() {
    return this.#inner.finishReason;
  }

  get rawFinishReason() {
    return this.#inner.rawFinishReason;
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamedMessagePart> {
    const inner = this.#inner[Symbol.asyncIterator]();
    const idleMs = this.#idleMs;
    const controller = this.#controller;
    // When the pending read began; the clock runs only while a read is pending.
    let since = performance.now();
    let waiting = true;
    let timedOut: APITimeoutError | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let ended = false;
    const check = (): void => {
      const idle = waiting ? performance.now() - since : 0;
      if (idle < idleMs) {
        timer = setTimeout(check, idleMs - idle);
        // The pending read keeps the process alive while a stream is open; the timer alone must not.
        timer.unref?.();
        return;
      }
      timedOut = new APITimeoutError(`${this.#label}: the response stream stalled (no data for ${seconds(idleMs)})`);
      end();
      controller.abort(timedOut);
    };
    const end = (): void => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      this.#release();
    };
    const onResult = (result: IteratorResult<StreamedMessagePart>): IteratorResult<StreamedMessagePart> => {
      waiting = false;
      if (result.done === true) end();
      return result;
    };
    const onError = (error: unknown): never => {
      end();
      throw timedOut ?? error;
    };
    timer = setTimeout(check, idleMs);
    timer.unref?.();
    return {
      next: () => {
        // Time the consumer spends on a part is not the server's silence.
        since = performance.now();
        waiting = true;
        if (timedOut !== null) return Promise.reject(timedOut);
        return inner.next().then(onResult, onError);
      },
      return: (value?: unknown) => {
        end();
        return inner.return?.(value) ?? Promise.resolve({ done: true, value: undefined });
      },
    };
  }
}

/**
 * A provider's limits: `timeouts` over the defaults, where an old-style
 * `timeout` (the SDK's request timeout, up to the response headers) stands
 * for `firstByteMs`, and a response that is not streamed gets
 * {@link DEFAULT_UNSTREAMED_TIMEOUT_MS}.
 * @throws RangeError for a limit that is not a positive number or null.
 */
export function providerStreamTimeouts(options: { timeouts?: StreamTimeouts; timeout?: number; stream?: boolean }): ResolvedStreamTimeouts {
  const firstByte = options.timeout ?? (options.stream === false ? DEFAULT_UNSTREAMED_TIMEOUT_MS : DEFAULT_STREAM_TIMEOUTS.firstByteMs);
  return resolveStreamTimeouts(options.timeouts, { firstByteMs: firstByte, idleMs: DEFAULT_STREAM_TIMEOUTS.idleMs });
}
