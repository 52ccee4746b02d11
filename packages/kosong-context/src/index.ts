/**
 * @kosong/context: linear conversation storage, in memory and in kimi-cli's
 * `context.jsonl` format, and the record logs (`ContextLog`: a JSONL file or
 * memory) that @kosong/soul builds its checkpointed Context on. The records
 * themselves (constructors, scanner, state fold) are in
 * `@kosong/context/records`.
 */
export type {
  ContextLog,
  ContextLogState,
  LogAppendReceipt,
  LogCheckpoint,
  LogPosition,
  LogPrepend,
  LogReadOptions,
  LogRotation,
  LogRotationInfo,
  LogRotationRestore,
  LogTruncation,
} from "./context-log.js";
export { checkRotationNote, MAX_NOTE_PROMPT, parseRotationNote, type RotationNote } from "./rotation-note.js";
export type { LinearStorage } from "./linear-storage.js";
export { LinearContext } from "./linear-context.js";
export { MemoryLinearStorage, type MemoryLinearStorageInit } from "./memory-linear-storage.js";
export { LogLinearStorage } from "./log-linear-storage.js";
export { JsonlLinearStorage, type JsonlLinearStorageOptions } from "./jsonl-linear-storage.js";
export { JsonlContextFile, type ContextFileOptions, type ContextFileStats, type Durability } from "./jsonl-context-file.js";
export { MemoryContextLog } from "./memory-context-log.js";
export { JsonlSessionStore, type JsonlSessionStoreOptions } from "./jsonl-session-store.js";
export { firstPromptIn, FIRST_PROMPT_MAX_CHARS, type SessionSummary } from "./session-summary.js";
export { SessionLock } from "./session-lock.js";
export { replaceFileDurably } from "./durable-fs.js";
export { GroupCommitQueue, type GroupCommitQueueOptions } from "./group-commit-queue.js";
export type { DamageKind } from "./context-record.js";
export type { RestoreReport, SkippedLine } from "./restore-report.js";
export {
  ContextFileChangedError,
  ContextStorageError,
  InvalidOffsetError,
  InvalidRecordError,
  RotationNotFoundError,
  SessionLockedError,
  StorageAlreadyModifiedError,
  StorageClosedError,
  StorageOpenError,
  StorageWriteError,
  type ContextFileChange,
  type LockOwner,
} from "./errors.js";
