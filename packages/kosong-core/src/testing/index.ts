export * from "./fake-provider-server.js";
export * from "./echo-dsl.js";
export { ScriptedStreamedMessage, type ScriptedStreamInit, type StreamingOptions } from "./scripted-streamed-message.js";
export type { ChatProviderCall } from "./chat-provider-call.js";
export * from "./mock-chat-provider.js";
export * from "./echo-chat-provider.js";
export * from "./scripted-chat-provider.js";
export * from "./chaos-fault.js";
export * from "./chaos-chat-provider.js";
