/**
 * What `soul.run()` and `soul.rewrite()` return: the turn's events as an
 * async iterable, and its outcome as a promise.
 */
import type { TokenUsage } from "@kosong/core";
import type { CompactionDetails } from "../compaction/index.js";
import type { SoulEvent, StopReason } from "../events/events.js";

/**
 * A running operation of a soul: iterate it for its events (once), await
 * `result` for its outcome. The operation runs whether or not anyone
 * iterates: events are queued for the iterator without bound (the soul never
 * waits for a consumer), and an iterator that stops early (`break`, a throw
 * in the loop body) only detaches itself; the operation goes on to its end.
 * Abort it with the signal given to the call that started it.
 */
export interface SoulStream<R> extends AsyncIterable<SoulEvent> {
  /** Settles once the operation has ended, after its last event was queued. */
  readonly result: Promise<R>;
}

/** The outcome of a turn. */
export interface TurnResult {
  /** Why the turn ended. */
  stopReason: StopReason;
  /** How many steps ran (a step is one LLM call plus its tools; a step retried counts once). */
  steps: number;
  /** Tokens used by every LLM call of the turn (retried attempts and compactions included where reported). */
  usage: TokenUsage;
  /** The error that ended the turn, when `stopReason` is `"error"`. */
  error?: Error;
}

/**
 * A turn: its events and `result`, which never rejects (an error is
 * `stopReason: "error"` with `error` set).
 */
export type Turn = SoulStream<TurnResult>;

/** The outcome of `soul.compact()`. */
export interface CompactionOutcome {
  /** The context's token estimate before and after. */
  tokensBefore: number;
  tokensAfter: number;
  /** What the strategy reported, with a note for each repair of its output; null when neither. */
  details: CompactionDetails | null;
  /** Tokens the strategy's own LLM calls used, null when it made none. */
  usage: TokenUsage | null;
}
