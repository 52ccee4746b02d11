/**
 * A {@link LinearStorage} in a JSONL file: kosong's `JsonlLinearStorage`,
 * reading kimi-cli's `context.jsonl` too (one reader for both formats).
 */
import path from "node:path";
import type { ContextRecord } from "./context-record.js";
import { appendPrepared, checkDurability, JsonlContextFile, type ContextFileOptions } from "./jsonl-context-file.js";
import { LogLinearStorage } from "./log-linear-storage.js";

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
export class JsonlLinearStorage extends LogLinearStorage<JsonlContextFile> {
  /** The file's absolute path. */
  readonly path: string;

  constructor(file: string, options: JsonlLinearStorageOptions = {}) {
    const durability = checkDurability(options.durability);
    const absolute = path.resolve(file);
    super(absolute, () => JsonlContextFile.open(absolute, { ...options, durability }));
    this.path = absolute;
  }

  /** Appends the lines already encoded from the validated copies (no second validation). */
  protected override write(file: JsonlContextFile, _records: readonly ContextRecord[], lines: readonly string[]): Promise<unknown> {
    return file[appendPrepared](lines);
  }
}
