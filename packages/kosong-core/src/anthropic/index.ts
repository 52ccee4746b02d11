/**
 * @kosong/core/anthropic: `AnthropicProvider` over the Anthropic Messages API
 * (needs the optional peer dependency `@anthropic-ai/sdk`), and the pure
 * conversion functions it is built from.
 */
export {
  AnthropicProvider,
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  INTERLEAVED_THINKING_BETA,
  type AnthropicGenerationOptions,
  type AnthropicProviderOptions,
  type AnthropicToolChoice,
} from "./anthropic-provider.js";
export {
  convertAnthropicMessages,
  convertAnthropicRequest,
  convertAnthropicTools,
  parseToolCallInput,
  type AnthropicConversionOptions,
  type AnthropicRequestBody,
  type AnthropicToolMessageConversion,
} from "./anthropic-request.js";
export {
  AnthropicStreamDecoder,
  anthropicEventOfSse,
  anthropicFinishReason,
  refusalMarker,
  anthropicMessageParts,
  anthropicTokenUsage,
  type AnthropicServerSentEvent,
} from "./anthropic-response.js";
export { AnthropicCompleteMessage, AnthropicStreamedMessage, type AnthropicStreamSource } from "./anthropic-streamed-message.js";
export { anthropicErrorStatuses, anthropicStreamError, convertAnthropicError } from "./anthropic-errors.js";
export {
  anthropicThinkingOptions,
  clampEffort,
  effortOfThinking,
  supportedEfforts,
  supportsAdaptiveThinking,
  supportsEffortParam,
  type AnthropicEffort,
  type AnthropicOutputConfig,
  type AnthropicThinkingConfig,
  type AnthropicThinkingOptions,
} from "./anthropic-thinking.js";
export type * from "./anthropic-wire.js";
