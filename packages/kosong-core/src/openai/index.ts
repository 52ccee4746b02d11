export {};
export { OpenAIChatProvider } from "./openai-chat-provider.js";
export type { OpenAIChatGenerationOptions, OpenAIChatProviderOptions } from "./openai-chat-provider.js";
export { KimiChatProvider, KIMI_DEFAULT_BASE_URL } from "./kimi-chat-provider.js";
export type { KimiChatProviderOptions, KimiGenerationOptions } from "./kimi-chat-provider.js";
export type { ChatDialect, OpenAIReasoningEffort } from "./openai-chat-request.js";
export { convertOpenAIError } from "./openai-errors.js";
