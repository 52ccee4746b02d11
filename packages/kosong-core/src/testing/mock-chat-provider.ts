import type {
  ChatProvider,
  FinishReason,
  StreamedMessage,
  ThinkingEffort,
} from "../chat-provider.js";
import { ChatProviderBase, type GenerationRequest } from "../chat-provider-base.js";
import type { StreamedMessagePart } from "../message.js";
import type { TokenUsage } from "../token-usage.js";
import { type ChatProviderCall, recordCall } from "./chat-provider-call.js";
import { ScriptedStreamedMessage, type StreamingOptions, validateStreamingOptions } from "./scripted-streamed-message.js";
import { thinkingCopy } from "./thinking-copy.js";

/** Options of {@link MockChatProvider}. */
export interface MockChatProviderOptions extends StreamingOptions {
  /** The message id of every response (default `"mock"`). */
  id?: string | null;
  /** The usage of every response (default null). */
  usage?: TokenUsage | null;
  /** The finish reason of every response (default: `tool_calls` when the parts call a tool, else `stop`). */
  finishReason?: FinishReason | null;
}

/**
 * A provider that answers every call with the same parts (as kosong's mock
 * provider). Each call streams fresh copies of the parts, so a consumer that
 * merges parts in place cannot change later responses.
 */
export class MockChatProvider extends ChatProviderBase implements ChatProvider {
  readonly name = "mock";
  readonly modelName = "mock";
  readonly thinkingEffort: ThinkingEffort | null = null;
  /** Every `generate` call so far (shared with copies made by {@link withThinking}). */
  readonly calls: ChatProviderCall[] = [];
  private readonly parts: readonly StreamedMessagePart[];
  private readonly options: MockChatProviderOptions;

  constructor(parts: readonly StreamedMessagePart[], options: MockChatProviderOptions = {}) {
    super();
    validateStreamingOptions(options);
    this.parts = parts.slice();
    this.options = { ...options };
  }

  protected async start(request: GenerationRequest): Promise<StreamedMessage> {
    this.calls.push(recordCall(request, this.thinkingEffort));
    const { id = "mock", usage = null, finishReason = null, chunkSize, delayMs } = this.options;
    return new ScriptedStreamedMessage({
      parts: this.parts.map(copyPart),
      id,
      usage: usage && { ...usage },
      finishReason,
      chunkSize,
      delayMs,
      signal: request.signal,
    });
  }

  withThinking(effort: ThinkingEffort): MockChatProvider {
    return thinkingCopy(this, effort);
  }
}

/**
 * A copy of a part deep enough that merging into it (text, think, arguments)
 * leaves the original alone; a think part gets its explicit `encrypted`
 * (null when unsigned), as every provider emits it.
 */
function copyPart(part: StreamedMessagePart): StreamedMessagePart {
  if (part.type === "function") return { ...part, function: { ...part.function } };
  if (part.type === "think") return { ...part, encrypted: part.encrypted ?? null };
  return { ...part };
}
