/**
 * The part of {@link ChatProvider.generate} every kosong provider shares,
 * written once: the four arguments become one {@link GenerationRequest}, and
 * a call whose signal is already aborted throws the abort at once, before
 * any request is made. A provider writes only `start`.
 */
import type { ChatProvider, ProviderGenerateOptions, StreamedMessage, Tool } from "./chat-provider.js";
import { abortError } from "./errors.js";
import type { Message } from "./message.js";

/** One {@link ChatProvider.generate} call as a provider's `start` receives it. */
export interface GenerationRequest {
  readonly systemPrompt: string;
  readonly tools: readonly Tool[];
  readonly history: readonly Message[];
  /** The caller's signal (not yet aborted when `start` is called). */
  readonly signal: AbortSignal | undefined;
}

/** The shared `generate` of the kosong providers (see the module comment). */
export abstract class ChatProviderBase implements Pick<ChatProvider, "generate"> {
  /**
   * Not an async function: it hands back `start`'s own promise (an async
   * function returning a promise would wrap it in one more, a few
   * microtask turns on every call of the loop). An error, the abort
   * included, is still a rejection, never a throw.
   */
  generate(systemPrompt: string, tools: readonly Tool[], history: readonly Message[], options: ProviderGenerateOptions = {}): Promise<StreamedMessage> {
    const { signal } = options;
    try {
      if (signal?.aborted) throw abortError(signal);
      return this.start({ systemPrompt, tools, history, signal });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Starts the generation `request` asks for (what `generate` resolves to). */
  protected abstract start(request: GenerationRequest): Promise<StreamedMessage>;
}
