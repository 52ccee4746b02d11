import type { ChatProvider, ProviderGenerateOptions, StreamedMessage, ThinkingEffort, Tool } from "../chat-provider.js";
import { abortError, ChatProviderError } from "../errors.js";
import { extractText, type Message } from "../message.js";
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
export class EchoChatProvider implements ChatProvider {
  readonly name = "echo";
  readonly modelName = "echo";
  readonly thinkingEffort: ThinkingEffort | null = null;
  /** Every `generate` call so far (shared with copies made by {@link withThinking}). */
  readonly calls: ChatProviderCall[] = [];
  private readonly streaming: StreamingOptions;

  constructor(options: EchoChatProviderOptions = {}) {
    validateStreamingOptions(options);
    this.streaming = { chunkSize: options.chunkSize, delayMs: options.delayMs };
  }

  async generate(
    systemPrompt: string,
    tools: readonly Tool[],
    history: readonly Message[],
    options: ProviderGenerateOptions = {},
  ): Promise<StreamedMessage> {
    if (options.signal?.aborted) throw abortError(options.signal);
    this.calls.push(recordCall(systemPrompt, tools, history, this.thinkingEffort));
    const last = history[history.length - 1];
    if (!last) throw new ChatProviderError("EchoChatProvider requires at least one message in history.");
    if (last.role !== "user") throw new ChatProviderError("EchoChatProvider expects the last history message to be user.");
    const script = parseEchoScript(extractText(last));
    if (script.parts.length === 0) {
      throw script.error ?? new ChatProviderError("EchoChatProvider DSL produced no streamable parts.");
    }
    return new ScriptedStreamedMessage({ ...script, ...this.streaming, signal: options.signal });
  }

  withThinking(effort: ThinkingEffort): EchoChatProvider {
    return thinkingCopy(this, effort);
  }
}
