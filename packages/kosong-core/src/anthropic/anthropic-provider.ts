/**
 * `AnthropicProvider`: kosong's chat-provider protocol over the Anthropic
 * Messages API, through the official `@anthropic-ai/sdk` client.
 */
import Anthropic from "@anthropic-ai/sdk";
import { Stream } from "@anthropic-ai/sdk/core/streaming";
import { ChatProviderBase, type GenerationRequest } from "../chat-provider-base.js";
import type { ChatProvider, StreamedMessage, ThinkingEffort } from "../chat-provider.js";
import { ChatProviderError } from "../errors.js";
import { providerStreamTimeouts, startWithTimeouts, type ResolvedStreamTimeouts, type StreamTimeouts } from "../stream-timeouts.js";
import { contextWindowOf } from "../model-context-windows.js";
import { readEnv } from "../read-env.js";
import { anthropicStreamError, convertAnthropicError } from "./anthropic-errors.js";
import { type AnthropicServerSentEvent, anthropicEventOfSse } from "./anthropic-response.js";
import { type AnthropicToolMessageConversion, convertAnthropicRequest } from "./anthropic-request.js";
import { AnthropicCompleteMessage, AnthropicStreamedMessage } from "./anthropic-streamed-message.js";
import {
  type AnthropicOutputConfig,
  type AnthropicThinkingConfig,
  anthropicThinkingOptions,
  effortOfThinking,
} from "./anthropic-thinking.js";
import type { AnthropicWireEvent, AnthropicWireMessage } from "./anthropic-wire.js";

/** The interleaved-thinking beta kosong declares by default (dropped by adaptive thinking). */
export const INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14";

/** What `max_tokens` is when not set: the value kimi-cli gives kosong's Anthropic provider. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 50_000;

/** `tool_choice` of a Messages request. */
export type AnthropicToolChoice =
  | { type: "auto"; disable_parallel_tool_use?: boolean }
  | { type: "any"; disable_parallel_tool_use?: boolean }
  | { type: "tool"; name: string; disable_parallel_tool_use?: boolean }
  | { type: "none" };

/** Per-request generation options (all optional; unset ones are not sent). */
export interface AnthropicGenerationOptions {
  /** `max_tokens` (the API requires one; default {@link DEFAULT_ANTHROPIC_MAX_TOKENS}). */
  maxTokens?: number;
  temperature?: number;
  topK?: number;
  topP?: number;
  /** `thinking`, e.g. `{type: "enabled", budget_tokens: 4096}`; usually set with `withThinking`. */
  thinking?: AnthropicThinkingConfig | null;
  /** `output_config`, e.g. `{effort: "high"}`; usually set with `withThinking`. */
  outputConfig?: AnthropicOutputConfig | null;
  toolChoice?: AnthropicToolChoice | null;
  /** Beta features sent as the `anthropic-beta` header (default: the interleaved-thinking beta). */
  betaFeatures?: string[];
  /** Extra headers per request; they win over the generated `anthropic-beta`. */
  extraHeaders?: Record<string, string>;
}

/** Options of {@link AnthropicProvider}. */
export interface AnthropicProviderOptions extends AnthropicGenerationOptions {
  /** The model, e.g. `claude-sonnet-4-6`. */
  model: string;
  /** The model's context window in tokens (default: `contextWindowOf(model)`, null when the table does not know it). */
  maxContextSize?: number | null;
  /**
   * API key; default `ANTHROPIC_API_KEY`. Without either, the SDK's bearer
   * token `ANTHROPIC_AUTH_TOKEN` is used; with none of them (and no
   * `client`) the constructor throws a {@link ChatProviderError}. Ignored
   * when `client` is given.
   */
  apiKey?: string;
  /** Base URL; default `ANTHROPIC_BASE_URL`, then the SDK's default. Ignored when `client` is given. */
  baseURL?: string;
  /** Time allowed for a request until its response starts, in ms (the SDK's `timeout`). */
  timeout?: number;
  /**
   * kosong's time limits of each call: until the response starts
   * (`firstByteMs`, default 2 minutes; `timeout` when given; 10 minutes for
   * a response that is not streamed) and between streamed parts (`idleMs`,
   * default 5 minutes). Each ends the call with a retryable
   * `APITimeoutError`; null turns a limit off.
   */
  timeouts?: StreamTimeouts;
  /** Headers sent with every request. Ignored when `client` is given. */
  defaultHeaders?: Record<string, string>;
  /**
   * A ready SDK client to use instead of building one. Build it with
   * `maxRetries: 0`: retries belong to the caller (the soul), once.
   */
  client?: Anthropic;
  /** Stream responses (default true). */
  stream?: boolean;
  /** `metadata` of every request, e.g. `{user_id: sessionId}`. */
  metadata?: { user_id?: string | null };
  /** `extract_text` sends tool results as their text joined by newlines instead of blocks. */
  toolMessageConversion?: AnthropicToolMessageConversion | null;
}

interface ProviderState {
  client: Anthropic;
  model: string;
  maxContextSize: number | null;
  stream: boolean;
  metadata: { user_id?: string | null } | undefined;
  toolMessageConversion: AnthropicToolMessageConversion | null;
  agentGateway: boolean;
  timeout: number | undefined;
  timeouts: ResolvedStreamTimeouts;
  generation: AnthropicGenerationOptions;
}

type RawEvents = (response: Response, controller: AbortController) => AsyncIterable<AnthropicServerSentEvent>;

/** The SDK's own SSE parser (`Stream.rawEvents`, @anthropic-ai/sdk >= 1.x), when this SDK version has it. */
const rawEvents: RawEvents | undefined = (Stream as unknown as { rawEvents?: RawEvents }).rawEvents?.bind(Stream);

/** Aborts `controller` when `signal` aborts; returns the function that unlinks them. */
function linkAbort(signal: AbortSignal | undefined, controller: AbortController): () => void {
  if (!signal) return () => {};
  const onAbort = (): void => controller.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

interface MessagesApi {
  create(body: Record<string, unknown>, options: Record<string, unknown>): Promise<unknown> & { asResponse(): Promise<Response> };
}

/**
 * A chat provider backed by Anthropic's Messages API (and compatible
 * servers through `baseURL`). Converts kosong messages as kosong does
 * (system prompt and last tool/block cached, signed thinking sent back,
 * consecutive tool results grouped), streams text, thinking with signatures,
 * redacted thinking and tool calls, reports usage with cache reads and
 * writes, and throws kosong's typed errors.
 */
export class AnthropicProvider extends ChatProviderBase implements ChatProvider {
  readonly name = "anthropic";
  private readonly state: ProviderState;

  /** @throws {ChatProviderError} without a `client`, an API key or `ANTHROPIC_AUTH_TOKEN`. */
  constructor(options: AnthropicProviderOptions) {
    super();
    const baseURL = options.baseURL ?? readEnv("ANTHROPIC_BASE_URL");
    const apiKey = options.apiKey ?? readEnv("ANTHROPIC_API_KEY");
    if (!options.client && !apiKey && !readEnv("ANTHROPIC_AUTH_TOKEN")) {
      throw new ChatProviderError(
        "AnthropicProvider needs an API key: pass `apiKey` or set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN for a bearer token), or pass a ready `client`.",
      );
    }
    const client =
      options.client ??
      new Anthropic({
        // null leaves the SDK to its bearer token, ANTHROPIC_AUTH_TOKEN.
        apiKey: apiKey || null,
        ...(baseURL ? { baseURL } : {}),
        ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
        ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
        maxRetries: 0,
      });
    const { model, stream, metadata, toolMessageConversion, timeout } = options;
    this.state = {
      client,
      model,
      maxContextSize: options.maxContextSize === undefined ? contextWindowOf(model) : options.maxContextSize,
      stream: stream ?? true,
      metadata,
      toolMessageConversion: toolMessageConversion ?? null,
      agentGateway: (baseURL ?? client.baseURL ?? "").includes("agent-gw"),
      timeout,
      timeouts: providerStreamTimeouts({ timeouts: options.timeouts, timeout, stream: stream ?? true }),
      generation: {
        maxTokens: options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
        temperature: options.temperature,
        topK: options.topK,
        topP: options.topP,
        thinking: options.thinking,
        outputConfig: options.outputConfig,
        toolChoice: options.toolChoice,
        betaFeatures: options.betaFeatures ?? [INTERLEAVED_THINKING_BETA],
        extraHeaders: options.extraHeaders,
      },
    };
  }

  private static from(state: ProviderState): AnthropicProvider {
    const provider = Object.create(AnthropicProvider.prototype) as AnthropicProvider;
    Object.assign(provider, { name: "anthropic", state });
    return provider;
  }

  get modelName(): string {
    return this.state.model;
  }

  /** The model's context window in tokens (the `maxContextSize` option, else `contextWindowOf(model)`). */
  get maxContextSize(): number | null {
    return this.state.maxContextSize;
  }

  get thinkingEffort(): ThinkingEffort | null {
    return effortOfThinking(this.state.generation.thinking, this.state.generation.outputConfig);
  }

  /** The generation options requests are sent with. */
  get generationOptions(): Readonly<AnthropicGenerationOptions> {
    return this.state.generation;
  }

  /** The SDK client requests go through. */
  get client(): Anthropic {
    return this.state.client;
  }

  /** A copy of this provider with some generation options replaced. */
  withGenerationOptions(options: AnthropicGenerationOptions): AnthropicProvider {
    return AnthropicProvider.from({ ...this.state, generation: { ...this.state.generation, ...options } });
  }

  /**
   * A copy that thinks with `effort`, mapped per model as kosong does:
   * adaptive thinking with `output_config.effort` from Claude 4.6 on, a
   * thinking budget (1024 / 4096 / 32000 tokens) before; unsupported efforts
   * clamp to `high`; `off` disables thinking.
   */
  withThinking(effort: ThinkingEffort): AnthropicProvider {
    const mapped = anthropicThinkingOptions(effort, this.state.model);
    const generation: AnthropicGenerationOptions = { ...this.state.generation, thinking: mapped.thinking };
    if (mapped.outputConfig !== undefined) generation.outputConfig = mapped.outputConfig;
    if (mapped.dropInterleavedBeta) {
      generation.betaFeatures = (generation.betaFeatures ?? []).filter((beta) => beta !== INTERLEAVED_THINKING_BETA);
    }
    return AnthropicProvider.from({ ...this.state, generation });
  }

  protected start(request: GenerationRequest): Promise<StreamedMessage> {
    const state = this.state;
    return startWithTimeouts(`${this.name} ${state.model}`, state.timeouts, request.signal, (signal) => this.startGeneration({ ...request, signal }));
  }

  /** One generation without kosong's time limits (`start` adds them). */
  private async startGeneration({ systemPrompt, tools, history, signal }: GenerationRequest): Promise<StreamedMessage> {
    const state = this.state;
    const gen = state.generation;
    const body: Record<string, unknown> = {
      model: state.model,
      ...convertAnthropicRequest(systemPrompt, tools, history, {
        toolMessageConversion: state.toolMessageConversion,
        allowVideoURL: state.agentGateway,
      }),
      max_tokens: gen.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
      stream: state.stream,
    };
    if (state.metadata != null) body.metadata = state.metadata;
    if (gen.temperature != null) body.temperature = gen.temperature;
    if (gen.topK != null) body.top_k = gen.topK;
    if (gen.topP != null) body.top_p = gen.topP;
    if (gen.thinking != null) body.thinking = gen.thinking;
    if (gen.outputConfig != null) body.output_config = gen.outputConfig;
    if (gen.toolChoice != null) body.tool_choice = gen.toolChoice;

    const headers: Record<string, string> = {};
    if (gen.betaFeatures && gen.betaFeatures.length > 0) headers["anthropic-beta"] = gen.betaFeatures.join(",");
    Object.assign(headers, gen.extraHeaders);
    // Non-stream requests: without an explicit timeout the SDK refuses large max_tokens.
    const timeout = state.timeout ?? (state.stream ? undefined : 600_000);
    // Retries belong to the caller (the soul), also with a caller-supplied client.
    const requestOptions = {
      headers,
      maxRetries: 0,
      ...(signal ? { signal } : {}),
      ...(timeout !== undefined ? { timeout } : {}),
    };

    const messages = state.client.messages as unknown as MessagesApi;
    if (state.stream && rawEvents && Object.getPrototypeOf(state.client) === Anthropic.prototype) return this.streamRaw(messages, body, requestOptions, signal);
    try {
      const response = await messages.create(body, requestOptions);
      if (state.stream) return new AnthropicStreamedMessage(response as AsyncIterable<AnthropicWireEvent>, signal);
      return new AnthropicCompleteMessage(response as AnthropicWireMessage);
    } catch (error) {
      throw convertAnthropicError(error, signal);
    }
  }

  /**
   * Streams through the SDK's SSE parser directly (`Stream.rawEvents` on the
   * response), skipping the SDK's per-event async generator on top of it:
   * one hop less per event. The request still goes through the SDK (auth,
   * headers, status errors, timeouts). Used for plain `Anthropic` clients;
   * other clients (Bedrock, Vertex, another SDK copy) keep their own stream.
   */
  private async streamRaw(
    messages: MessagesApi,
    body: Record<string, unknown>,
    requestOptions: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<StreamedMessage> {
    // A per-request controller carries the caller's abort, so that no SDK listener stays on the caller's signal.
    const controller = new AbortController();
    const unlink = linkAbort(signal, controller);
    let response: Response;
    try {
      response = await messages.create(body, { ...requestOptions, signal: controller.signal }).asResponse();
    } catch (error) {
      unlink();
      throw convertAnthropicError(error, signal);
    }
    const headers = response.headers;
    if ((headers.get("content-type") ?? "").includes("application/json")) return this.wholeAnswer(response, signal, unlink);
    return new AnthropicStreamedMessage(
      {
        items: rawEvents!(response, controller),
        toEvent: (sse: AnthropicServerSentEvent) => anthropicEventOfSse(sse, headers),
        close: (abandoned) => {
          unlink();
          if (abandoned) controller.abort();
        },
      },
      signal,
    );
  }

  /**
   * A JSON body answering a stream request (compatible servers that ignore
   * `stream`): the complete message it holds, or the typed error of an
   * error body.
   */
  private async wholeAnswer(response: Response, signal: AbortSignal | undefined, unlink: () => void): Promise<StreamedMessage> {
    try {
      const body = (await response.json()) as AnthropicWireMessage & { type?: unknown };
      if (body.type === "error") throw anthropicStreamError(body, response.headers);
      return new AnthropicCompleteMessage(body);
    } catch (error) {
      throw convertAnthropicError(error, signal);
    } finally {
      unlink();
    }
  }
}
