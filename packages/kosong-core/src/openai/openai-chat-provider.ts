/**
 * `OpenAIChatProvider`: the OpenAI Chat Completions API, and every server
 * that speaks it (Kimi/Moonshot, DeepSeek, vLLM, llama.cpp, Ollama, ...),
 * through the official `openai` SDK.
 */
import type OpenAI from "openai";

import { ChatProviderBase, type GenerationRequest } from "../chat-provider-base.js";
import type {
  ChatProvider,
  StreamedMessage,
  ThinkingEffort,
  Tool,
} from "../chat-provider.js";
import { providerStreamTimeouts, startWithTimeouts, type ResolvedStreamTimeouts } from "../stream-timeouts.js";
import type { JsonValue, Message } from "../message.js";
import { contextWindowOf } from "../model-context-windows.js";
import { ChatCompletionMessage, streamedMessageFromChunks, streamedMessageFromResponse } from "./openai-chat-streamed-message.js";
import {
  fromReasoningEffort,
  historyHasThinking,
  openAIDialect,
  reasoningFieldForHost,
  toChatMessages,
  toChatTool,
  toReasoningEffort,
  type ChatDialect,
  type OpenAIReasoningEffort,
} from "./openai-chat-request.js";
import type { ChatWireChunk, ChatWireCompletion } from "./openai-chat-response.js";
import { createOpenAIClient, missingOpenAIKey, openAIEndpoint, type OpenAIClientOptions, type ResolvedEndpoint } from "./openai-client.js";
import { convertOpenAIError } from "./openai-errors.js";

/**
 * Generation options, sent as request-body fields under their wire names.
 * Any other key is sent as is (an escape hatch for server-specific fields);
 * a key set to `undefined` is not sent.
 */
export interface OpenAIChatGenerationOptions {
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  n?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  stop?: string | string[];
  seed?: number;
  prompt_cache_key?: string;
  parallel_tool_calls?: boolean;
  [key: string]: JsonValue | undefined;
}

/** Options of {@link OpenAIChatProvider}. */
export interface OpenAIChatProviderOptions extends OpenAIClientOptions {
  /** The model, e.g. `gpt-4.1`, `deepseek-reasoner`, `qwen3:8b`. */
  model: string;
  /** The model's context window in tokens (default: `contextWindowOf(model)`, null when the table does not know it). */
  maxContextSize?: number | null;
  /** Stream the response (default true). Non-stream responses map to the same parts. */
  stream?: boolean;
  /**
   * The message field that carries reasoning on this server. Unset (the
   * default): reasoning is read from `reasoning_content` or `reasoning`,
   * whichever the server sends, and think parts are written back in the
   * field it used (before it has answered with reasoning: see
   * `reasoningFieldForHost`). A field name reads and writes only that field
   * and, as kosong does, sends `reasoning_effort: "medium"` when the history
   * holds think parts and no effort was set. Null: reasoning is neither read
   * nor sent.
   */
  reasoningKey?: string | null;
  /** `extract_text`: send tool results as one string, for servers that only accept text there. */
  toolMessageConversion?: "extract_text" | null;
  /** Further dialect rules (see {@link ChatDialect}); `reasoningKey` and `toolMessageConversion` above win. */
  dialect?: Partial<ChatDialect>;
  /** Generation options sent with every request (see {@link OpenAIChatProvider.withGenerationOptions}). */
  generation?: OpenAIChatGenerationOptions;
  /** The provider's name (default `openai`). */
  name?: string;
}

/**
 * A chat provider for the OpenAI Chat Completions API and every
 * OpenAI-compatible server.
 *
 * Requests are converted as kosong's `openai_legacy` provider converts them:
 * the system prompt first as a `system` message, think parts out of the
 * content (written back in the server's reasoning field), tool results as
 * `tool` messages, tools as `function` tools (omitted when there are none).
 * Responses stream by default (`stream_options.include_usage` on), and map
 * to text, think (`reasoning_content` or `reasoning`) and tool-call parts, parallel calls
 * routed by their stream `index`; usage counts cached prompt tokens apart.
 * The request goes through the SDK (authentication, headers, HTTP errors);
 * the event stream of a successful response is decoded here, at a third of
 * the cost of the SDK's own stream iteration.
 *
 * Errors are kosong's typed errors (see `convertOpenAIError`): status errors
 * with `statusCode`, `requestId`, `retryAfterMs`, context overflow and quota
 * exhaustion recognisable, errors inside a 200 stream typed by their kind, a
 * connection cut mid-stream as `APIConnectionError`, an abort as an
 * AbortError. The SDK client never retries (`maxRetries: 0`).
 *
 * Instances are immutable: {@link withThinking} and
 * {@link withGenerationOptions} return configured copies sharing the client.
 */
export class OpenAIChatProvider extends ChatProviderBase implements ChatProvider {
  readonly name: string;
  readonly modelName: string;
  readonly maxContextSize: number | null;
  /** The SDK client (shared by copies). */
  readonly client: OpenAI;
  /** Whether responses are streamed. */
  readonly stream: boolean;
  /** The dialect rules in use. */
  readonly dialect: Readonly<ChatDialect>;
  protected generation: Readonly<OpenAIChatGenerationOptions>;
  /** The `reasoning_effort` set by {@link withThinking}; undefined when never set. */
  protected reasoningEffort: OpenAIReasoningEffort | undefined = undefined;
  protected readonly timeout: number | undefined;
  /** kosong's time limits of each call (see `OpenAIClientOptions.timeouts`). */
  protected readonly streamTimeouts: ResolvedStreamTimeouts;
  /** The reasoning field this server has answered with, shared by copies (used when the dialect reads a list of fields). */
  protected readonly reasoningSeen: { key: string | null } = { key: null };

  constructor(options: OpenAIChatProviderOptions) {
    super();
    this.name = options.name ?? "openai";
    this.modelName = options.model;
    this.maxContextSize = options.maxContextSize === undefined ? contextWindowOf(options.model) : options.maxContextSize;
    this.stream = options.stream ?? true;
    this.timeout = options.timeout;
    this.streamTimeouts = providerStreamTimeouts({ ...options, stream: this.stream });
    this.dialect = {
      ...openAIDialect,
      ...options.dialect,
      ...(options.reasoningKey === undefined ? {} : { reasoningKey: options.reasoningKey }),
      ...(options.toolMessageConversion === undefined ? {} : { toolMessageConversion: options.toolMessageConversion }),
    };
    this.generation = { ...options.generation };
    this.client = createOpenAIClient(options, this.resolveEndpoint(options), this.missingKeyMessage());
  }

  /** The error message when no API key is configured. */
  protected missingKeyMessage(): string {
    return missingOpenAIKey("OpenAIChatProvider");
  }

  /** The API key and base URL to use: the options, then the environment. */
  protected resolveEndpoint(options: OpenAIChatProviderOptions): ResolvedEndpoint {
    return openAIEndpoint(options);
  }

  /** The effort set with {@link withThinking} (`max` reads back as `xhigh`), or null. */
  get thinkingEffort(): ThinkingEffort | null {
    return this.reasoningEffort === undefined ? null : fromReasoningEffort(this.reasoningEffort);
  }

  /** The generation options sent with every request. */
  get generationOptions(): Readonly<OpenAIChatGenerationOptions> {
    return this.generation;
  }

  /**
   * A copy that sends `reasoning_effort` for `effort`, as kosong maps it:
   * `off` sends null, `max` clamps to `xhigh` (OpenAI's highest level).
   */
  withThinking(effort: ThinkingEffort): this {
    return this.copyWith({ reasoningEffort: toReasoningEffort(effort) });
  }

  /** A copy whose generation options are these merged over the current ones. */
  withGenerationOptions(options: OpenAIChatGenerationOptions): this {
    return this.copyWith({ generation: { ...this.generation, ...options } });
  }

  /** A shallow copy with some fields replaced (subclasses keep their own fields). */
  protected copyWith(patch: Record<string, unknown>): this {
    const copy = Object.create(Object.getPrototypeOf(this) as object) as this;
    Object.assign(copy, this, patch);
    return copy;
  }

  /**
   * The `reasoning_effort` to send: the one set with {@link withThinking};
   * otherwise `medium` when the dialect has a reasoning key and the history
   * holds think parts (as kosong does: some servers reject reasoning content
   * without it); otherwise none.
   */
  protected reasoningEffortFor(history: readonly Message[]): OpenAIReasoningEffort | undefined {
    if (this.reasoningEffort !== undefined) return this.reasoningEffort;
    return typeof this.dialect.reasoningKey === "string" && historyHasThinking(history) ? "medium" : undefined;
  }

  /**
   * The dialect requests are written in: with a list of reasoning fields,
   * think parts go back in the field the server answered with, else in
   * {@link reasoningFieldForHost}'s, and an empty think part still sends the
   * (empty) field.
   */
  protected requestDialect(): ChatDialect {
    const key = this.dialect.reasoningKey;
    if (key === null || typeof key === "string") return this.dialect;
    const field = this.reasoningSeen.key ?? reasoningFieldForHost(this.client.baseURL);
    return { ...this.dialect, reasoningKey: field, keepEmptyReasoning: true };
  }

  /** Remembers the field this server sends reasoning in. */
  protected readonly learnReasoningKey = (key: string): void => {
    this.reasoningSeen.key = key;
  };

  /** The request body for one generation. */
  requestBody(systemPrompt: string, tools: readonly Tool[], history: readonly Message[]): Record<string, unknown> {
    const body: Record<string, unknown> = { model: this.modelName, messages: toChatMessages(systemPrompt, history, this.requestDialect()) };
    // Deliberate: no `tools: []` (OpenAI rejects an empty array); kosong does the same today.
    if (tools.length > 0) body.tools = tools.map((tool) => toChatTool(tool, this.dialect));
    body.stream = this.stream;
    if (this.stream) body.stream_options = { include_usage: true };
    const effort = this.reasoningEffortFor(history);
    if (effort !== undefined) body.reasoning_effort = effort;
    for (const [key, value] of Object.entries(this.generation)) if (value !== undefined) body[key] = value;
    return body;
  }

  protected start(request: GenerationRequest): Promise<StreamedMessage> {
    return startWithTimeouts(`${this.name} ${this.modelName}`, this.streamTimeouts, request.signal, (signal) => this.startGeneration({ ...request, signal }));
  }

  /** One generation without kosong's time limits (`start` adds them). */
  protected async startGeneration({ systemPrompt, tools, history, signal }: GenerationRequest): Promise<StreamedMessage> {
    const body = this.requestBody(systemPrompt, tools, history);
    // Retries belong to the caller (the soul), also with a caller-supplied client.
    const requestOptions = {
      maxRetries: 0,
      ...(signal ? { signal } : {}),
      ...(this.timeout === undefined ? {} : { timeout: this.timeout }),
    };
    try {
      const request = this.client.chat.completions.create(body as never, requestOptions) as unknown as PromiseLike<unknown> & {
        asResponse?: () => Promise<Response>;
      };
      const learn = this.learnReasoningKey;
      if (!this.stream) return new ChatCompletionMessage((await request) as ChatWireCompletion, this.dialect, learn);
      // The body is read by this package (see openai-chat-chunk-source.ts); a client
      // without `asResponse` hands back its own stream, which is iterated.
      if (typeof request.asResponse === "function") return await streamedMessageFromResponse(await request.asResponse(), this.dialect, signal, learn);
      return streamedMessageFromChunks((await request) as AsyncIterable<ChatWireChunk>, this.dialect, signal, learn);
    } catch (error) {
      throw convertOpenAIError(error, signal);
    }
  }
}
