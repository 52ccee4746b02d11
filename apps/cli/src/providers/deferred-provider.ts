/**
 * A provider whose SDK is loaded when it is first needed. The official SDKs
 * take a good part of the interactive mode's start to import (the `openai`
 * package alone is over 200 modules), and nothing before the first prompt
 * calls the model: the interactive mode draws its prompt first and then
 * calls {@link DeferredProvider.load} to import the SDK while the user
 * types; any other use loads it on the first `generate`.
 */
import { type ChatProvider, contextWindowOf, type Message, type ProviderGenerateOptions, type StreamedMessage, type ThinkingEffort, type Tool } from "@kosong/core";

/** A {@link ChatProvider} built by `create` on first use. */
export class DeferredProvider implements ChatProvider {
  readonly #create: () => Promise<ChatProvider>;
  #provider: Promise<ChatProvider> | null = null;

  /**
   * @param name The name the built provider has (`openai`, `anthropic`, ...).
   * @param modelName The model it calls.
   * @param create Builds it (importing its SDK); its failure rejects each `generate`.
   */
  constructor(
    readonly name: string,
    readonly modelName: string,
    create: () => Promise<ChatProvider>,
    readonly thinkingEffort: ThinkingEffort | null = null,
  ) {
    this.#create = create;
  }

  /** The model's context window as the SDK providers report it (kosong's table). */
  get maxContextSize(): number | null {
    return contextWindowOf(this.modelName);
  }

  /** Builds the provider now (once); later calls share it. */
  load(): Promise<ChatProvider> {
    if (this.#provider === null) {
      this.#provider = this.#create();
      // A failure is reported by the generate that needs the provider, not as an unhandled rejection.
      this.#provider.catch(() => undefined);
    }
    return this.#provider;
  }

  async generate(systemPrompt: string, tools: readonly Tool[], history: readonly Message[], options?: ProviderGenerateOptions): Promise<StreamedMessage> {
    return (await this.load()).generate(systemPrompt, tools, history, options);
  }

  withThinking(effort: ThinkingEffort): DeferredProvider {
    return new DeferredProvider(this.name, this.modelName, async () => (await this.load()).withThinking(effort), effort);
  }
}
