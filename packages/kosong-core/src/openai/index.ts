/**
 * @kosong/core/openai: `OpenAIChatProvider` (OpenAI Chat Completions and every
 * compatible server, with the `KimiChatProvider` preset) and
 * `OpenAIResponsesProvider`. Needs the optional peer dependency `openai`.
 */
export { OpenAIResponsesProvider } from "./openai-responses-provider.js";
export type { OpenAIResponsesGenerationOptions, OpenAIResponsesProviderOptions } from "./openai-responses-provider.js";
export type { ResponsesStreamedMessage } from "./openai-responses-stream.js";
export { OpenAIChatProvider } from "./openai-chat-provider.js";
export type { OpenAIChatGenerationOptions, OpenAIChatProviderOptions } from "./openai-chat-provider.js";
export { KimiChatProvider, KIMI_DEFAULT_BASE_URL } from "./kimi-chat-provider.js";
export type { KimiChatProviderOptions, KimiGenerationOptions } from "./kimi-chat-provider.js";
export type { ChatDialect, OpenAIReasoningEffort } from "./openai-chat-request.js";
export { reasoningFieldForHost, reasoningFields } from "./openai-chat-request.js";
export { convertOpenAIError } from "./openai-errors.js";
export type { OpenAIClientOptions, ResolvedEndpoint } from "./openai-client.js";
