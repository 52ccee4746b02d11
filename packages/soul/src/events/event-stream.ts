/**
 * One small async-iterable event stream with a result promise: what a turn
 * (and a compaction) hands its caller. The producer pushes without waiting;
 * the consumer iterates at its own pace.
 */
import { SoulError } from "../errors.js";

/** Thrown when a stream's events are iterated a second time. */
export class StreamAlreadyIteratedError extends SoulError {
  static override readonly brand: string = "@kosong/soul.error.StreamAlreadyIteratedError";

  constructor() {
    super("The events of a turn can be iterated once; keep the first iterator (or collect the events into an array).");
  }
}

/**
 * A single-consumer queue of events plus a result.
 *
 * Buffering: `push` never blocks and never fails; events wait in an unbounded
 * queue until the consumer takes them (a turn's events are about as large as
 * its output, so a slow consumer costs memory, never progress). When the
 * consumer stops iterating (`break`, an exception in its loop), the queue is
 * dropped and later events are discarded; `result` still settles when the
 * producer ends.
 */
export class EventStream<E, R> implements AsyncIterable<E> {
  readonly result: Promise<R>;
  #queue: E[] = [];
  #head = 0;
  #waiting: ((next: IteratorResult<E, undefined>) => void) | null = null;
  #ended = false;
  #detached = false;
  #iterated = false;
  #resolve!: (value: R) => void;
  #reject!: (error: unknown) => void;

  constructor() {
    this.result = new Promise<R>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // A failure is for whoever awaits `result`; nobody awaiting it is not a crash.
    this.result.catch(() => {});
  }

  /** Queues an event for the consumer (dropped once the stream ended or the consumer left). */
  push(event: E): void {
    if (this.#ended || this.#detached) return;
    const waiting = this.#waiting;
    if (waiting !== null) {
      this.#waiting = null;
      waiting({ value: event, done: false });
    } else {
      this.#queue.push(event);
    }
  }

  /** Ends the stream with its result: the consumer receives the queued events, then the end. */
  end(result: R): void {
    if (this.#finish()) this.#resolve(result);
  }

  /** Ends the stream with a failure: the consumer receives the queued events, then the end; `result` rejects. */
  fail(error: unknown): void {
    if (this.#finish()) this.#reject(error);
  }

  [Symbol.asyncIterator](): AsyncIterator<E, undefined> {
    if (this.#iterated) throw new StreamAlreadyIteratedError();
    this.#iterated = true;
    return {
      next: () => this.#next(),
      return: () => {
        this.#detached = true;
        this.#queue = [];
        this.#head = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  #next(): Promise<IteratorResult<E, undefined>> {
    if (this.#head < this.#queue.length) {
      const value = this.#queue[this.#head++]!;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.#ended || this.#detached) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  #finish(): boolean {
    if (this.#ended) return false;
    this.#ended = true;
    const waiting = this.#waiting;
    this.#waiting = null;
    waiting?.({ value: undefined, done: true });
    return true;
  }
}
