/**
 * `@kosong/soul/wire`: serve any soul over kimi-cli's wire protocol
 * (JSON-RPC 2.0 over stdio), as `kosong --wire` does.
 */
export { serveWire, type ServeWireOptions, type WireOutput } from "./serve-wire.js";
export { toWireMessage, wireMessageKind, type WireMessage, type WireMessageKind } from "./wire-message.js";
export { WIRE_PROTOCOL_VERSION, WireErrorCode } from "./wire-rpc.js";
export { WireLog } from "./wire-log.js";
export type { WireAnswers, WireQuestionChannel, WireQuestionItem } from "./wire-questions.js";
