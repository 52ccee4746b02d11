/**
 * A {@link LinearStorage} in PostgreSQL: kosong's linear conversation store
 * (messages and token marks) over a {@link PostgresContextLog}.
 */
import { LogLinearStorage } from "@kosong/context";
import type { ContextRecord } from "@kosong/context/records";
import { appendLines, type PostgresContextLog } from "./postgres-context-log.js";

/**
 * Messages and token counts of one session, as `JsonlLinearStorage` keeps
 * them in a file: call `restore()` first to continue a session; the session
 * is opened (and locked: a second writer gets `SessionLockedError`) by
 * `restore()` or the first append, and released by `close()`. `messages`
 * and `tokenCount` reflect what is committed: an append shows there once
 * its promise resolves.
 */
export class PostgresLinearStorage extends LogLinearStorage<PostgresContextLog> {
  /** Appends the lines already encoded from the validated copies (no second validation). */
  protected override write(log: PostgresContextLog, _records: readonly ContextRecord[], lines: readonly string[]): Promise<unknown> {
    return log[appendLines](lines);
  }
}
