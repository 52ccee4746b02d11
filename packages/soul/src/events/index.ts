/** Exports of the events area of @kosong/soul for `./internal` (the public ones are chosen in ../index.ts). */
export {
  partEventTypes,
  approvalKinds,
  type ApprovalKind,
  type CompactionReason,
  type RevertReason,
  type SoulEvent,
  type SoulEventOf,
  type SoulEventPayloads,
  type SoulEventType,
  type StopReason,
  type UserInput,
} from "./events.js";
export { serializeEvent, parseEvent, WireParseError } from "./wire.js";
export { EventStream, StreamAlreadyIteratedError } from "./event-stream.js";
