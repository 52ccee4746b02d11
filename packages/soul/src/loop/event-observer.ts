/**
 * What a host observes of a soul: every event of every operation, handed to
 * its observer one call at a time, in order, whoever consumes the streams.
 */
import type { SoulEvent } from "../events/events.js";

/**
 * A host's observer of a soul's events, `SoulOptions["observer"]` (the root
 * entry does not name it): it may return a promise, which the next call
 * waits for. What it throws or rejects with is dropped, so it reports its
 * own failures.
 */
export type SoulObserver = (event: SoulEvent) => void | Promise<void>;

/** Calls an observer with each event pushed, each call after the previous one settled; drops its failures. */
export class ObservedEvents {
  readonly #observer: SoulObserver;
  #last: Promise<void> = Promise.resolve();

  constructor(observer: SoulObserver) {
    this.#observer = observer;
  }

  /** Queues `event` for the observer (never throws, never waits). */
  push(event: SoulEvent): void {
    this.#last = this.#last.then(() => this.#observer(event)).catch(() => undefined);
  }

  /** Resolves once the observer has returned (or failed) for every event pushed so far. */
  drained(): Promise<void> {
    return this.#last;
  }
}
