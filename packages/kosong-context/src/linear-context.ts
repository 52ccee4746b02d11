/**
 * A conversation with a linear history: kosong's `LinearContext`, a thin
 * facade over a {@link LinearStorage}.
 */
import type { Message } from "@kosong/core";
import type { LinearStorage } from "./linear-storage.js";

/** A linear history of messages and its token count, kept by a storage. */
export class LinearContext {
  readonly storage: LinearStorage;

  constructor(storage: LinearStorage) {
    this.storage = storage;
  }

  /** The messages so far, oldest first. */
  get history(): readonly Message[] {
    return this.storage.messages;
  }

  /** The latest marked token count. */
  get tokenCount(): number {
    return this.storage.tokenCount;
  }

  /** Appends a message to the history. */
  appendMessage(message: Message): Promise<void> {
    return this.storage.appendMessage(message);
  }

  /** Appends several messages as one unit. */
  appendMessages(messages: readonly Message[]): Promise<void> {
    return this.storage.appendMessages(messages);
  }

  /** Records the token count of the history so far (typically the last response's usage). */
  markTokenCount(tokenCount: number): Promise<void> {
    return this.storage.markTokenCount(tokenCount);
  }
}
