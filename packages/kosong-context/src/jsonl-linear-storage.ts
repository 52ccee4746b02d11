/**
 * A {@link LinearStorage} in a JSONL file: kosong's `JsonlLinearStorage`,
 * reading kimi-cli's `context.jsonl` too (one reader for both formats).
 */
import path from "node:path";
import { parseMessage, serializeMessage, type Message } from "@kosong/core";
import { assertTokenCount, encodeRecord } from "./context-record.js";
import { StorageAlreadyModifiedError, StorageClosedError } from "./errors.js";
import { appendPrepared, checkDurability, JsonlContextFile, type ContextFileOptions } from "./jsonl-context-file.js";
import type { LinearStorage } from "./linear-storage.js";
import type { RestoreReport } from "./restore-report.js";

/** Options of {@link JsonlLinearStorage}. */
export type JsonlLinearStorageOptions = ContextFileOptions;

/**
 * Messages and token counts appended to a JSONL file, one line each
 * (`{"role": "_usage", "token_count": N}` for a token mark).
 *
 * Call `restore()` first to continue an existing file; appending without it
 * starts writing right away (to a new or existing file). The file is opened
 * (and locked: a second writer gets `SessionLockedError`) by `restore()` or
 * the first append, and released by `close()`. Its folder must exist:
 * opening does not create folders, and fails with `StorageOpenError` (as
 * does a path that is a directory); the next call tries again. `messages` and `tokenCount`
 * reflect what is committed to the file: an append shows there once its
 * promise resolves.
 */
export class JsonlLinearStorage implements LinearStorage {
  /** The file's absolute path. */
  readonly path: string;
  readonly #options: ContextFileOptions;
  #messages: Message[] = [];
  #tokenCount = 0;
  #file: Promise<JsonlContextFile> | null = null;
  #touched = false;
  #report: RestoreReport | null = null;
  #closed = false;
  #closing: Promise<void> | null = null;

  constructor(file: string, options: JsonlLinearStorageOptions = {}) {
    const durability = checkDurability(options.durability);
    this.path = path.resolve(file);
    this.#options = { ...options, durability };
  }

  get messages(): readonly Message[] {
    return this.#messages;
  }

  get tokenCount(): number {
    return this.#tokenCount;
  }

  /** The report of `restore()`: lines read and lines skipped. Null before a restore. */
  get restoreReport(): RestoreReport | null {
    return this.#report;
  }

  /**
   * Opens and locks the file and loads its messages and last token count.
   * Damaged lines are skipped and listed in the returned report; the file is
   * not modified. A missing file restores to empty (`exists: false`).
   * Throws `StorageAlreadyModifiedError` after an append or a restore.
   */
  async restore(): Promise<RestoreReport> {
    if (this.#closed) throw new StorageClosedError(`${this.path} is closed`);
    if (this.#touched) throw new StorageAlreadyModifiedError();
    this.#touched = true;
    const opening = (async () => {
      const file = await JsonlContextFile.open(this.path, this.#options);
      try {
        const state = await file.read();
        this.#messages = state.messages;
        this.#tokenCount = state.tokenCount;
        this.#report = state.report;
      } catch (error) {
        await file.close();
        throw error;
      }
      return file;
    })();
    this.#file = opening;
    try {
      await opening;
    } catch (error) {
      this.#file = null;
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
    return this.#append(copies.map((copy) => serializeMessage(copy)), () => {
      for (const copy of copies) this.#messages.push(copy);
    });
  }

  markTokenCount(tokenCount: number): Promise<void> {
    try {
      this.#assertOpen();
      assertTokenCount(tokenCount);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#append([encodeRecord({ kind: "usage", tokenCount })], () => {
      this.#tokenCount = tokenCount;
    });
  }

  /** Commits pending appends, closes the file and releases its lock. Idempotent. */
  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#closed = true;
    const file = this.#file;
    this.#closing = file === null ? Promise.resolve() : file.then((f) => f.close(), () => undefined);
    return this.#closing;
  }

  /** `close()`, for `await using storage = new JsonlLinearStorage(...)`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #append(lines: readonly string[], commit: () => void): Promise<void> {
    this.#touched = true;
    if (this.#file === null) {
      const opening = JsonlContextFile.open(this.path, this.#options);
      this.#file = opening;
      // A failed open (say, a locked file) wrote nothing: the next append or a restore may retry.
      opening.catch(() => {
        if (this.#file !== opening) return;
        this.#file = null;
        this.#touched = false;
      });
    }
    return this.#file.then((file) => file[appendPrepared](lines)).then(commit);
  }

  #assertOpen(): void {
    if (this.#closed) throw new StorageClosedError(`${this.path} is closed`);
  }
}
