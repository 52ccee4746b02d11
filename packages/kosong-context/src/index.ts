/**
 * @kosong/context: linear conversation storage, in memory and in kimi-cli's
 * `context.jsonl` format, with the record-level reader and writer of that
 * format that @kosong/soul builds its checkpointed Context on.
 */
export type {
  ContextLog,
  ContextLogState,
  LogAppendReceipt,
  LogCheckpoint,
  LogPosition,
  LogRotation,
  LogRotationInfo,
  LogRotationRestore,
} from "./context-log.js";
export type { LinearStorage } from "./linear-storage.js";
export { LinearContext } from "./linear-context.js";
export { MemoryLinearStorage, type MemoryLinearStorageInit } from "./memory-linear-storage.js";
export { JsonlLinearStorage, type JsonlLinearStorageOptions } from "./jsonl-linear-storage.js";
export {
  JsonlContextFile,
  type AppendReceipt,
  type ContextFileOptions,
  type ContextFileStats,
  type Durability,
  type RotationRestore,
} from "./jsonl-context-file.js";
export {
  checkpointRecord,
  decodeRecord,
  decodeRecordLine,
  encodeRecord,
  messageRecord,
  otherRecord,
  systemPromptRecord,
  usageRecord,
  type CheckpointRecord,
  type ContextRecord,
  type DamageKind,
  type DecodedLine,
  type MessageRecord,
  type OtherRecord,
  type SystemPromptRecord,
  type UsageRecord,
} from "./context-record.js";
export { scanContextFile, type ScanOptions, type ScannedRecord } from "./record-scanner.js";
export { readContextFile, ContextStateBuilder, type CheckpointMark, type ContextFileState } from "./context-state.js";
export type { RestoreReport, SkippedLine } from "./restore-report.js";
export { listRotations, rotationPath, type Rotation, type RotationInfo } from "./rotation.js";
export {
  ContextStorageError,
  InvalidOffsetError,
  InvalidRecordError,
  RotationNotFoundError,
  SessionLockedError,
  StorageAlreadyModifiedError,
  StorageClosedError,
  StorageOpenError,
  StorageWriteError,
  type LockOwner,
} from "./errors.js";
