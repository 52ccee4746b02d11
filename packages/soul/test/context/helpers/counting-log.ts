/**
 * A `ContextLog` that counts the appends and truncations reaching the log it wraps, and can
 * make the next ones fail (as a full disk would: `StorageWriteError`,
 * nothing of the call written).
 */
import {
  StorageWriteError,
  type ContextLog,
  type ContextLogState,
  type LogAppendReceipt,
  type LogPrepend,
  type LogRotation,
  type LogRotationInfo,
  type RotationNote,
  type LogRotationRestore,
  type LogPosition,
  type LogTruncation,
} from "@kosong/context";
import type { ContextRecord } from "@kosong/context/records";

export class CountingLog implements ContextLog {
  /** Every append call that reached the log, with its records' roles. */
  readonly appends: string[][] = [];
  /** Every truncateAndRotate call that reached the log, with the roles of the records written after the kept prefix. */
  readonly truncations: string[][] = [];
  /** Appends to refuse, from the next one on. */
  failures = 0;

  constructor(readonly inner: ContextLog) {}

  get location(): string {
    return this.inner.location;
  }

  append(records: readonly ContextRecord[]): Promise<LogAppendReceipt> {
    if (this.failures > 0) {
      this.failures -= 1;
      return Promise.reject(new StorageWriteError(`appending to ${this.location} failed: no space left on device`));
    }
    this.appends.push(records.map(roleOf));
    return this.inner.append(records);
  }

  read(): Promise<ContextLogState> {
    return this.inner.read();
  }

  truncateAndRotate(position: LogPosition, records: readonly ContextRecord[] = []): Promise<LogTruncation> {
    this.truncations.push(records.map(roleOf));
    return this.inner.truncateAndRotate(position, records);
  }

  prepend(records: readonly ContextRecord[]): Promise<LogPrepend> {
    return this.inner.prepend(records);
  }

  listRotations(): Promise<LogRotationInfo[]> {
    return this.inner.listRotations();
  }

  restoreRotation(n: number): Promise<LogRotationRestore> {
    return this.inner.restoreRotation(n);
  }

  readRotation(n: number): Promise<ContextLogState> {
    return this.inner.readRotation(n);
  }

  annotateRotation(n: number, note: RotationNote): Promise<void> {
    return this.inner.annotateRotation(n, note);
  }

  addRotation(records: readonly ContextRecord[]): Promise<LogRotation> {
    return this.inner.addRotation(records);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** The `role` a record has in a context file: a message's role, or `_checkpoint`, `_usage`, ... */
function roleOf(record: ContextRecord): string {
  if (record.kind === "message") return record.message.role;
  return record.kind === "other" ? record.role : `_${record.kind}`;
}
