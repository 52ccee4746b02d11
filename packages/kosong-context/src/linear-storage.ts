/**
 * The storage behind a {@link LinearContext}: an append-only list of
 * messages plus the latest token count, as in kosong's `LinearStorage`.
 */
import type { Message } from "@kosong/core";

/**
 * An append-only conversation store. Implementations keep every message in
 * memory (so reading is synchronous) and may persist them.
 *
 * The contract (checked by `describeLinearStorageContract` from
 * `@kosong/context/testing`):
 * - appends and token marks take effect in call order, also when callers do
 *   not wait for each other; once an append's promise resolves, `messages`
 *   holds its messages;
 * - `appendMessage(s)` validates each message: an invalid one rejects with
 *   `MessageParseError` and stores nothing of that call; what is stored is a
 *   validated copy, unaffected by later changes to the caller's object;
 * - `markTokenCount` takes a non-negative integer (else `InvalidRecordError`);
 * - `close()` waits for pending appends; afterwards appends reject with
 *   `StorageClosedError`; closing twice is harmless.
 */
export interface LinearStorage {
  /** All messages, oldest first. Do not modify the array. */
  readonly messages: readonly Message[];
  /** The latest marked token count (0 before any mark); may be approximate, depending on who marks it. */
  readonly tokenCount: number;
  /** Appends one message. */
  appendMessage(message: Message): Promise<void>;
  /** Appends several messages as one unit (one write for a file). */
  appendMessages(messages: readonly Message[]): Promise<void>;
  /** Records the token count of the conversation so far. */
  markTokenCount(tokenCount: number): Promise<void>;
  /** Finishes pending work and releases resources. */
  close(): Promise<void>;
}
