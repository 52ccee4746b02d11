/**
 * A {@link LinearStorage} in memory: for tests, and for conversations that
 * need no persistence.
 */
import { parseMessage, type Message } from "@kosong/core";
import { assertTokenCount } from "./context-record.js";
import { StorageClosedError } from "./errors.js";
import type { LinearStorage } from "./linear-storage.js";

/** Initial content of a {@link MemoryLinearStorage}. */
export interface MemoryLinearStorageInit {
  messages?: readonly Message[];
  tokenCount?: number;
}

/** Messages and the token count, in memory. Appends take effect immediately. */
export class MemoryLinearStorage implements LinearStorage {
  readonly #messages: Message[] = [];
  #tokenCount = 0;
  #closed = false;

  /** Starts empty, or with (validated copies of) `init.messages` and `init.tokenCount`. */
  constructor(init: MemoryLinearStorageInit = {}) {
    for (const message of init.messages ?? []) this.#messages.push(parseMessage(message));
    if (init.tokenCount !== undefined) {
      assertTokenCount(init.tokenCount);
      this.#tokenCount = init.tokenCount;
    }
  }

  get messages(): readonly Message[] {
    return this.#messages;
  }

  get tokenCount(): number {
    return this.#tokenCount;
  }

  appendMessage(message: Message): Promise<void> {
    return this.appendMessages([message]);
  }

  appendMessages(messages: readonly Message[]): Promise<void> {
    try {
      this.#assertOpen();
      const copies = messages.map((m) => parseMessage(m));
      for (const copy of copies) this.#messages.push(copy);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  markTokenCount(tokenCount: number): Promise<void> {
    try {
      this.#assertOpen();
      assertTokenCount(tokenCount);
      this.#tokenCount = tokenCount;
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }

  #assertOpen(): void {
    if (this.#closed) throw new StorageClosedError();
  }
}
