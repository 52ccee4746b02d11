/**
 * @kosong/context/records: the record-level building blocks of the
 * context-file format, for code that works with records directly (a
 * `ContextLog` implementation, a checkpointed context, tools that inspect
 * session files): record constructors and types, the record encoder and
 * decoder, the streaming scanner and the state fold.
 */
export {
  checkpointRecord,
  decodeRecord,
  decodeRecordLine,
  encodeRecord,
  messageRecord,
  otherRecord,
  parsedMessageRecord,
  systemPromptRecord,
  usageRecord,
  type CheckpointRecord,
  type ContextRecord,
  type DecodedLine,
  type MessageRecord,
  type OtherRecord,
  type SystemPromptRecord,
  type UsageRecord,
} from "../context-record.js";
export { checkpointMarkerId, checkpointMarkerText } from "../checkpoint-marker.js";
export { scanContextFile, type ScanOptions, type ScannedRecord } from "../record-scanner.js";
export { ContextStateBuilder, readContextFile } from "../context-state.js";
