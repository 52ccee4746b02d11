/**
 * @kosong/core: the message model, the chat-provider protocol, generate/step
 * and tools. Providers live in `@kosong/core/openai` and
 * `@kosong/core/anthropic`; test providers in `@kosong/core/testing`.
 */
export * from "./message.js";
export * from "./message-json.js";
export * from "./token-usage.js";
export * from "./model-context-windows.js";
export * from "./error-marker.js";
export * from "./errors.js";
export type * from "./chat-provider.js";
export { ChatProviderBase, type GenerationRequest } from "./chat-provider-base.js";
export * from "./status-error.js";
export * from "./context-overflow.js";
export * from "./message-schema.js";
export * from "./lazy-schema.js";
export * from "./merge-parts.js";
export * from "./generate.js";
export * from "./step.js";
export {
  DEFAULT_STREAM_TIMEOUTS,
  DEFAULT_UNSTREAMED_TIMEOUT_MS,
  resolveStreamTimeouts,
  startWithTimeouts,
  type ResolvedStreamTimeouts,
  type StreamTimeouts,
} from "./stream-timeouts.js";
export * from "./tool-return-value.js";
export * from "./tool-errors.js";
export type * from "./tool-context.js";
export * from "./tool.js";
export type { StandardSchemaV1 } from "./standard-schema.js";
export * from "./toolset.js";
export * from "./tool-result-message.js";
export * from "./redact-url-passwords.js";
