/**
 * `OpenAIResponsesProvider`: the OpenAI Responses API (`POST /v1/responses`)
 * through the official `openai` SDK, as upstream kosong's `OpenAIResponses`.
 */
import type OpenAI from "openai";
import type { ResponseCreateParams, ResponseInput, ResponseStreamEvent, Tool as SDKTool } from "openai/resources/responses/responses";
import type { Stream } from "openai/core/streaming";
import { ChatProviderBase, type GenerationRequest } from "../chat-provider-base.js";
import type { ChatProvider, StreamedMessage, ThinkingEffort, Tool } from "../chat-provider.js";
import { providerStreamTimeouts, startWithTimeouts, type ResolvedStreamTimeouts } from "../stream-timeouts.js";
import type { Message } from "../message.js";
import { contextWindowOf } from "../model-context-windows.js";
import { createOpenAIClient, missingOpenAIKey, openAIEndpoint, type OpenAIClientOptions } from "./openai-client.js";
import { fromReasoningEffort, toReasoningEffort, type OpenAIReasoningEffort } from "./openai-chat-request.js";
import { convertOpenAIError } from "./openai-errors.js";
import {
  convertResponsesInput,
  convertResponsesTool,
  isOpenAIModel,
  type ToolMessageConversion,
} from "./openai-responses-request.js";
import { ResponsesStreamedMessage } from "./openai-responses-stream.js";

/**
 * Generation options sent with every request, under their Responses API
 * names. `reasoning_effort` becomes `reasoning: {effort, summary: "auto"}`
 * plus `include: ["reasoning.encrypted_content"]`, as upstream.
 */
export interface OpenAIResponsesGenerationOptions {
  max_output_tokens?: number | null;
  max_tool_calls?: number | null;
  reasoning_effort?: OpenAIReasoningEffort;
  temperature?: number | null;
  top_logprobs?: number | null;
  top_p?: number | null;
  user?: string;
}

/** Options of {@link OpenAIResponsesProvider}. */
export interface OpenAIResponsesProviderOptions extends OpenAIClientOptions {
  /** The model, e.g. `gpt-5.1-codex-max`. */
  model: string;
  /** The model's context window in tokens (default: `contextWindowOf(model)`, null when the table does not know it). */
  maxContextSize?: number | null;
  /** Stream the response (default) or ask for it whole. */
  stream?: boolean;
  /**
   * The role of the system prompt and of system messages. Default: `developer`
   * for OpenAI's own models (`gpt-4*`, `gpt-5*`, `o*`, ...), `system` for
   * others (open-weight models behind compatible servers).
   */
  systemRole?: "developer" | "system";
  /** `extract_text`: send each tool result as its text parts joined by newlines. */
  toolMessageConversion?: ToolMessageConversion | null;
  /** Generation options sent with every request. */
  generation?: OpenAIResponsesGenerationOptions;
}

/**
 * A chat provider for the OpenAI Responses API (and servers that implement
 * it). Requests are stateless (`store: false`): the whole history is sent
 * each time, reasoning items travel back as think parts carrying their
 * `encrypted_content`. Tool call ids are the API's `call_id`s.
 *
 * ```ts
 * const provider = new OpenAIResponsesProvider({ model: "gpt-5.1-codex-max" }).withThinking("high");
 * ```
 */
export class OpenAIResponsesProvider extends ChatProviderBase implements ChatProvider {
  readonly name = "openai-responses";
  readonly modelName: string;
  readonly maxContextSize: number | null;
  /** The SDK client (shared by copies). */
  readonly client: OpenAI;
  readonly #options: OpenAIResponsesProviderOptions;
  readonly #timeouts: ResolvedStreamTimeouts;

  constructor(options: OpenAIResponsesProviderOptions) {
    super();
    this.modelName = options.model;
    this.#timeouts = providerStreamTimeouts(options);
    this.maxContextSize = options.maxContextSize === undefined ? contextWindowOf(options.model) : options.maxContextSize;
    this.#options = { ...options, generation: { ...options.generation } };
    this.client = createOpenAIClient(options, openAIEndpoint(options), missingOpenAIKey("OpenAIResponsesProvider"));
  }

  /**
   * The effort that `reasoning_effort` stands for (as upstream: `max` reads
   * back as `xhigh`, `off` as `off`), or null when none was set.
   */
  get thinkingEffort(): ThinkingEffort | null {
    const effort = this.#options.generation?.reasoning_effort;
    return effort === undefined ? null : fromReasoningEffort(effort);
  }

  /** The generation options sent with every request. */
  get generationOptions(): Readonly<OpenAIResponsesGenerationOptions> {
    return this.#options.generation ?? {};
  }

  /**
   * A copy that reasons with `effort`: `reasoning.effort` low/medium/high/xhigh,
   * `max` clamped to `xhigh`; `off` sends no reasoning options at all (as upstream).
   */
  withThinking(effort: ThinkingEffort): OpenAIResponsesProvider {
    return this.withGenerationOptions({ reasoning_effort: toReasoningEffort(effort) });
  }

  /** A copy whose generation options are `options` merged over the current ones. */
  withGenerationOptions(options: OpenAIResponsesGenerationOptions): OpenAIResponsesProvider {
    const generation = { ...this.#options.generation, ...options };
    return new OpenAIResponsesProvider({ ...this.#options, client: this.client, generation });
  }

  protected start(request: GenerationRequest): Promise<StreamedMessage> {
    return startWithTimeouts(`${this.name} ${this.modelName}`, this.#timeouts, request.signal, (signal) => this.#start({ ...request, signal }));
  }

  /** One generation without kosong's time limits (`start` adds them). */
  async #start({ systemPrompt, tools, history, signal }: GenerationRequest): Promise<ResponsesStreamedMessage> {
    const body = this.#requestBody(systemPrompt, tools, history);
    try {
      const timeout = this.#options.timeout;
      // Retries belong to the caller (the soul), also with a caller-supplied client.
      const requestOptions = { maxRetries: 0, ...(signal ? { signal } : {}), ...(timeout === undefined ? {} : { timeout }) };
      const { data, response } = await this.client.responses.create(body, requestOptions).withResponse();
      const source = body.stream ? (data as Stream<ResponseStreamEvent>) : (data as OpenAI.Responses.Response);
      return new ResponsesStreamedMessage(source, { headers: response.headers, signal });
    } catch (error) {
      throw convertOpenAIError(error, signal);
    }
  }

  #requestBody(systemPrompt: string, tools: readonly Tool[], history: readonly Message[]): ResponseCreateParams {
    const { model, stream = true, systemRole, toolMessageConversion, generation = {} } = this.#options;
    const input = convertResponsesInput(systemPrompt, history, {
      systemRole: systemRole ?? (isOpenAIModel(model) ? "developer" : "system"),
      toolMessageConversion: toolMessageConversion ?? null,
    });
    const { reasoning_effort: effort, ...rest } = generation;
    const body: ResponseCreateParams = {
      ...rest,
      stream,
      model,
      input: input as ResponseInput,
      tools: tools.map(convertResponsesTool) as SDKTool[],
      store: false,
    };
    if (effort != null) {
      body.reasoning = { effort, summary: "auto" };
      body.include = ["reasoning.encrypted_content"];
    }
    return body;
  }
}
