import { ChatProviderBase, type GenerationRequest } from "../chat-provider-base.js";
import type { ChatProvider, StreamedMessage, ThinkingEffort } from "../chat-provider.js";
import { ChatProviderError } from "../errors.js";
import { extractText } from "../message.js";
import { type ChatProviderCall, recordCall } from "./chat-provider-call.js";
import { parseEchoScript } from "./echo-dsl.js";
import { ScriptedStreamedMessage, type StreamingOptions, validateStreamingOptions } from "./scripted-streamed-message.js";
import { thinkingCopy } from "./thinking-copy.js";

/** Options of {@link EchoChatProvider}. */
export type EchoChatProviderOptions = StreamingOptions;

/**
 * kosong's echo provider: the last message of the history must be a user
 * message, and its text is an echo DSL script (see {@link parseEchoScript})
 * describing the response to stream.
 *
 * ```
 * id: echo-42
 * usage: {"input_other": 10, "output": 2}
 * think: thinking...
 * text: Hello,
 * text:  world!
 * tool_call: {"id": "call-1", "name": "search", "arguments": "{\"query\": \"time\"}"}
 * ```
 *
 * `generate` rejects with a {@link ChatProviderError} (kosong's messages)
 * for an empty history, a last message that is not a user message, a script
 * that does not parse or that yields no part.
 */
export class EchoChatProvider extends ChatProviderBase implements ChatProvider {
  readonly name = "echo";
  readonly modelName = "echo";
  readonly thinkingEffort: ThinkingEffort | null = null;
  /** Every `generate` call so far (shared with copies made by {@link withThinking}). */
  readonly calls: ChatProviderCall[] = [];
  private readonly streaming: StreamingOptions;

  constructor(options: EchoChatProviderOptions = {}) {
    super();
    validateStreamingOptions(options);
    this.streaming = { chunkSize: options.chunkSize, delayMs: options.delayMs };
  }

  protected async start(request: GenerationRequest): Promise<StreamedMessage> {
    this.calls.push(recordCall(request, this.thinkingEffort));
    const { history, signal } = request;
    const last = history[history.length - 1];
    if (!last) throw new ChatProviderError("EchoChatProvider requires at least one message in history.");
    if (last.role !== "user") throw new ChatProviderError("EchoChatProvider expects the last history message to be user.");
    const script = parseEchoScript(extractText(last));
    if (script.parts.length === 0) {
      throw script.error ?? new ChatProviderError("EchoChatProvider DSL produced no streamable parts.");
    }
    return new ScriptedStreamedMessage({ ...script, ...this.streaming, signal });
  }

  withThinking(effort: ThinkingEffort): EchoChatProvider {
    return thinkingCopy(this, effort);
  }
}
