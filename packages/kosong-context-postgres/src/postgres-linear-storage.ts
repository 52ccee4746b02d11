/**
 * A {@link LinearStorage} in PostgreSQL: kosong's linear conversation store
 * (messages and token marks) over a {@link PostgresContextLog}.
 */
import { parseMessage, serializeMessage, type Message } from "@kosong/core";
import { StorageAlreadyModifiedError, StorageClosedError, type LinearStorage, type RestoreReport } from "@kosong/context";
import { encodeRecord } from "@kosong/context/records";
import { assertTokenCountRecord } from "./token-count.js";
import { appendLines, type PostgresContextLog } from "./postgres-context-log.js";

/**
 * Messages and token counts of one session, as `JsonlLinearStorage` keeps
 * them in a file: call `restore()` first to continue a session; the session
 * is opened (and locked: a second writer gets `SessionLockedError`) by
 * `restore()` or the first append, and released by `close()`. `messages`
 * and `tokenCount` reflect what is committed: an append shows there once
 * its promise resolves.
 */
export class PostgresLinearStorage implements LinearStorage {
  readonly #open: () => Promise<PostgresContextLog>;
  #messages: Message[] = [];
  #tokenCount = 0;
  #log: Promise<PostgresContextLog> | null = null;
  #touched = false;
  #closed = false;
  #closing: Promise<void> | null = null;

  /** @internal Made by {@link PostgresContextStore.linearStorage}. */
  constructor(open: () => Promise<PostgresContextLog>) {
    this.#open = open;
  }

  get messages(): readonly Message[] {
    return this.#messages;
  }

  get tokenCount(): number {
    return this.#tokenCount;
  }

  /**
   * Opens and locks the session and loads its messages and last token
   * count. Throws `StorageAlreadyModifiedError` after an append or a restore.
   */
  async restore(): Promise<RestoreReport> {
    if (this.#closed) throw new StorageClosedError();
    if (this.#touched) throw new StorageAlreadyModifiedError();
    this.#touched = true;
    const opening = this.#open();
    this.#log = opening;
    try {
      const log = await opening;
      const state = await log.read();
      this.#messages = state.messages;
      this.#tokenCount = state.tokenCount;
      return state.report;
    } catch (error) {
      this.#log = null;
      this.#touched = false;
      await opening.then((log) => log.close(), () => undefined);
      throw error;
    }
  }

  appendMessage(message: Message): Promise<void> {
    return this.appendMessages([message]);
  }

  appendMessages(messages: readonly Message[]): Promise<void> {
    let copies: Message[];
    try {
      this.#assertOpen();
      copies = messages.map((message) => parseMessage(message));
    } catch (error) {
      return Promise.reject(error);
    }
    if (copies.length === 0) return Promise.resolve();
    return this.#append(copies.map((copy) => serializeMessage(copy)), () => {
      for (const copy of copies) this.#messages.push(copy);
    });
  }

  markTokenCount(tokenCount: number): Promise<void> {
    try {
      this.#assertOpen();
      assertTokenCountRecord(tokenCount);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#append([encodeRecord({ kind: "usage", tokenCount })], () => {
      this.#tokenCount = tokenCount;
    });
  }

  /** Commits pending appends and releases the session. Idempotent. */
  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#closed = true;
    const log = this.#log;
    this.#closing = log === null ? Promise.resolve() : log.then((l) => l.close(), () => undefined);
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #append(lines: readonly string[], commit: () => void): Promise<void> {
    this.#touched = true;
    if (this.#log === null) {
      const opening = this.#open();
      this.#log = opening;
      // A failed open (a locked session) wrote nothing: the next append or a restore may retry.
      opening.catch(() => {
        if (this.#log !== opening) return;
        this.#log = null;
        this.#touched = false;
      });
    }
    return this.#log.then((log) => log[appendLines](lines)).then(commit);
  }

  #assertOpen(): void {
    if (this.#closed) throw new StorageClosedError();
  }
}
