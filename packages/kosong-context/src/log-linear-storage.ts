/**
 * A {@link LinearStorage} over a {@link ContextLog}: kosong's linear
 * conversation store (messages and token marks) written as records to any
 * log. `JsonlLinearStorage` is the one over a JSONL file; a database package
 * builds its own on it.
 */
import { parseMessage, serializeMessage, type Message } from "@kosong/core";
import type { ContextLog } from "./context-log.js";
import { assertTokenCount, encodeRecord, type ContextRecord } from "./context-record.js";
import { StorageAlreadyModifiedError, StorageClosedError } from "./errors.js";
import type { LinearStorage } from "./linear-storage.js";
import type { RestoreReport } from "./restore-report.js";

/**
 * Messages and token counts appended to a log, one record each (a `_usage`
 * record for a token mark).
 *
 * Call `restore()` first to continue an existing log; appending without it
 * starts writing right away. The log is opened (and locked: a second writer
 * gets `SessionLockedError`) by `restore()` or the first append, and
 * released by `close()`; a failed open stores nothing, and the next call
 * tries again. `messages` and `tokenCount` reflect what is committed: an
 * append shows there once its promise resolves.
 */
export class LogLinearStorage<L extends ContextLog = ContextLog> implements LinearStorage {
  /** Where the log lives, for messages. */
  readonly location: string;
  readonly #open: () => Promise<L>;
  #messages: Message[] = [];
  #tokenCount = 0;
  #log: Promise<L> | null = null;
  #touched = false;
  #report: RestoreReport | null = null;
  #closed = false;
  #closing: Promise<void> | null = null;

  /** A storage over the log `open` opens (called by `restore()` or the first append, again after a failed open). */
  constructor(location: string, open: () => Promise<L>) {
    this.location = location;
    this.#open = open;
  }

  get messages(): readonly Message[] {
    return this.#messages;
  }

  get tokenCount(): number {
    return this.#tokenCount;
  }

  /** The report of `restore()`: records read and lines skipped. Null before a restore. */
  get restoreReport(): RestoreReport | null {
    return this.#report;
  }

  /**
   * Opens and locks the log and loads its messages and last token count.
   * Damaged records are skipped and listed in the returned report; the log
   * is not modified. Throws `StorageAlreadyModifiedError` after an append or
   * a restore.
   */
  async restore(): Promise<RestoreReport> {
    if (this.#closed) throw new StorageClosedError(`${this.location} is closed`);
    if (this.#touched) throw new StorageAlreadyModifiedError();
    this.#touched = true;
    const opening = (async () => {
      const log = await this.#open();
      try {
        const state = await log.read();
        this.#messages = state.messages;
        this.#tokenCount = state.tokenCount;
        this.#report = state.report;
      } catch (error) {
        await log.close();
        throw error;
      }
      return log;
    })();
    this.#log = opening;
    try {
      await opening;
    } catch (error) {
      this.#log = null;
      this.#touched = false;
      throw error;
    }
    return this.#report!;
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
    const records: ContextRecord[] = copies.map((message) => ({ kind: "message", message }));
    return this.#append(records, copies.map((copy) => serializeMessage(copy)), () => {
      for (const copy of copies) this.#messages.push(copy);
    });
  }

  markTokenCount(tokenCount: number): Promise<void> {
    let record: ContextRecord;
    try {
      this.#assertOpen();
      assertTokenCount(tokenCount);
      record = { kind: "usage", tokenCount };
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#append([record], [encodeRecord(record)], () => {
      this.#tokenCount = tokenCount;
    });
  }

  /** Commits pending appends, closes the log and releases its lock. Idempotent. */
  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#closed = true;
    const log = this.#log;
    this.#closing = log === null ? Promise.resolve() : log.then((l) => l.close(), () => undefined);
    return this.#closing;
  }

  /** `close()`, for `await using storage = ...`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * Writes validated records (`lines`: their JSONL lines, already encoded)
   * to the log. The default appends the records; a log that takes encoded
   * lines overrides this to skip encoding them again.
   */
  protected write(log: L, records: readonly ContextRecord[], _lines: readonly string[]): Promise<unknown> {
    return log.append(records);
  }

  #append(records: readonly ContextRecord[], lines: readonly string[], commit: () => void): Promise<void> {
    this.#touched = true;
    if (this.#log === null) {
      const opening = this.#open();
      this.#log = opening;
      // A failed open (say, a locked log) wrote nothing: the next append or a restore may retry.
      opening.catch(() => {
        if (this.#log !== opening) return;
        this.#log = null;
        this.#touched = false;
      });
    }
    return this.#log.then((log) => this.write(log, records, lines)).then(commit);
  }

  #assertOpen(): void {
    if (this.#closed) throw new StorageClosedError(`${this.location} is closed`);
  }
}
