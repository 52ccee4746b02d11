/**
 * A provider whose SDK is loaded when it is first needed. The official SDKs
 * take a good part of the interactive mode's start to import (the `openai`
 * package alone is over 200 modules), and nothing before the first prompt
 * calls the model: the interactive mode draws its prompt first and then
 * calls {@link DeferredProvider.load} to import the SDK while the user
 * types; any other use loads it on the first `generate`.
 */
import { startupMark } from "../startup-marks.js";
import { type TransportWarmUp, type WarmUpOutcome, type WarmUpRequest, warmUpFirstTurn } from "./first-turn-warm-up.js";
import { APIStatusError, type ChatProvider, ChatProviderError, contextWindowOf, type Message, type ProviderGenerateOptions, type StreamedMessage, type ThinkingEffort, type Tool } from "@kosong/core";

/** A {@link ChatProvider} built by `create` on first use. */
export class DeferredProvider implements ChatProvider {
  readonly #create: () => Promise<ChatProvider>;
  readonly #transportWarmUp: TransportWarmUp | null;
  #provider: Promise<ChatProvider> | null = null;

  /**
   * @param name The name the built provider has (`openai`, `anthropic`, ...).
   * @param modelName The model it calls.
   * @param create Builds it (importing its SDK); its failure rejects each `generate`.
   * @param thinkingEffort The effort of `withThinking`, null for the provider's default.
   * @param keySource Where the API key came from (e.g. `OPENAI_API_KEY`): a refused key (401, 403) says so.
   * @param acceptsImages Whether the model takes images: when false, a history with an image part is refused with a {@link ChatProviderError} saying so, before any request (not a 400 from the API).
   * @param transportWarmUp How {@link warmUp} runs the first request's code without calling the provider; null: it does nothing.
   */
  constructor(
    readonly name: string,
    readonly modelName: string,
    create: () => Promise<ChatProvider>,
    readonly thinkingEffort: ThinkingEffort | null = null,
    readonly keySource: string | null = null,
    readonly acceptsImages = true,
    transportWarmUp: TransportWarmUp | null = null,
  ) {
    this.#create = create;
    this.#transportWarmUp = transportWarmUp;
  }

  /** The model's context window as the SDK providers report it (kosong's table). */
  get maxContextSize(): number | null {
    return contextWindowOf(this.modelName);
  }

  /** Builds the provider now (once); later calls share it. */
  load(): Promise<ChatProvider> {
    if (this.#provider === null) {
      this.#provider = this.#create();
      void this.#provider.then(() => startupMark("sdk-loaded"), () => undefined);
      // A failure is reported by the generate that needs the provider, not as an unhandled rejection.
      this.#provider.catch(() => undefined);
    }
    return this.#provider;
  }

  /**
   * Loads the SDK, then, while `idle()` holds, runs one turn with a twin of
   * this provider against a throwaway server on 127.0.0.1 (see
   * {@link warmUpFirstTurn}), so that the first real turn does not pay for
   * running Node's fetch, the SDK's request and stream code and the agent
   * loop for the first time. Nothing is sent to the provider. `request`: the
   * system prompt and tools the twin's request carries (see
   * {@link WarmUpRequest}; none when absent). Never rejects.
   */
  async warmUp(idle: () => boolean, request?: WarmUpRequest): Promise<WarmUpOutcome> {
    if (this.#transportWarmUp === null) return "skipped";
    try {
      await this.load();
    } catch {
      return "failed";
    }
    const outcome = await warmUpFirstTurn(this.#transportWarmUp, idle, request);
    if (outcome === "warmed") startupMark("first-turn-warmed");
    return outcome;
  }

  async generate(systemPrompt: string, tools: readonly Tool[], history: readonly Message[], options?: ProviderGenerateOptions): Promise<StreamedMessage> {
    if (!this.acceptsImages && history.some((message) => message.content.some((part) => part.type === "image_url"))) {
      throw new ChatProviderError(`The model ${this.modelName} does not accept images, and the conversation has one; nothing was sent. Switch to a model that takes images (/model), or set image_input = true in the config if this one does.`);
    }
    try {
      const provider = await this.load();
      startupMark("first-request");
      return await provider.generate(systemPrompt, tools, history, options);
    } catch (error) {
      throw this.#namingKey(error);
    }
  }

  withThinking(effort: ThinkingEffort): DeferredProvider {
    const warmUp = this.#transportWarmUp;
    const twin = warmUp && { wire: warmUp.wire, twin: async (baseURL: string) => (await warmUp.twin(baseURL)).withThinking(effort) };
    return new DeferredProvider(this.name, this.modelName, async () => (await this.load()).withThinking(effort), effort, this.keySource, this.acceptsImages, twin);
  }

  /** A refused key (401, 403) with where the key came from added to its message, so the user knows what to fix. */
  #namingKey(error: unknown): unknown {
    if (this.keySource === null || !APIStatusError.isInstance(error) || (error.statusCode !== 401 && error.statusCode !== 403)) return error;
    const { statusCode, requestId, retryAfterMs, errorType, errorCode } = error;
    return new APIStatusError(statusCode, `${error.message} (the API key sent came from ${this.keySource})`, { requestId, retryAfterMs, errorType, errorCode, cause: error });
  }
}
