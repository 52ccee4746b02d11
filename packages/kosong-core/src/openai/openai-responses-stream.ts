/**
 * Response mapping for the OpenAI Responses API: streamed events (or a whole
 * non-stream response) to kosong message parts, usage and finish reason.
 */
import type {
  Response as ResponsesResponse,
  ResponseStreamEvent,
  ResponseUsage,
} from "openai/resources/responses/responses";
import type { FinishReason, StreamedMessage } from "../chat-provider.js";
import { abortError, APIConnectionError, type APIStatusError } from "../errors.js";
import type { StreamedMessagePart, StreamedToolCall } from "../message.js";
import type { HeaderSource } from "../status-error.js";
import { convertOpenAIError, errorFromOpenAIErrorObject, type OpenAIErrorObject } from "./openai-errors.js";
import type { TokenUsage } from "../token-usage.js";

/** kosong usage from Responses usage: cached tokens are cache reads, `cache_write_tokens` cache creation. */
export function responsesTokenUsage(usage: ResponseUsage): TokenUsage {
  const details = usage.input_tokens_details as Partial<ResponseUsage.InputTokensDetails> | null | undefined;
  const cacheRead = details?.cached_tokens ?? 0;
  const cacheCreation = details?.cache_write_tokens ?? 0;
  return {
    input_other: (usage.input_tokens ?? 0) - cacheRead - cacheCreation,
    output: usage.output_tokens ?? 0,
    input_cache_read: cacheRead,
    input_cache_creation: cacheCreation,
  };
}

/** The normalised and raw finish reason of a finished response. */
export function responsesFinishReason(
  response: Pick<ResponsesResponse, "status" | "incomplete_details">,
  sawToolCall: boolean,
  sawRefusal = false,
): { finishReason: FinishReason; raw: string | null } {
  const status = response.status ?? null;
  if (status === "incomplete") {
    const reason = response.incomplete_details?.reason ?? null;
    const finishReason =
      reason === "max_output_tokens" ? "max_tokens" : reason === "content_filter" ? "content_filter" : "other";
    return { finishReason, raw: reason ?? status };
  }
  if (status === "completed") return { finishReason: sawToolCall ? "tool_calls" : sawRefusal ? "refusal" : "stop", raw: status };
  return { finishReason: status === "failed" ? "error" : "other", raw: status };
}

/** `response.failed` codes that name a problem with the request itself (HTTP 400 when sent as errors). */
const requestFailureCodes = new Set([
  "invalid_prompt",
  "bio_policy",
  "misalignment_policy_violation",
  "data_residency_mismatch",
  "empty_image_file",
  "failed_to_download_image",
  "unsupported_image_media_type",
]);

/**
 * The typed error for a failure reported inside a 200 stream: an `error`
 * event (documented flat as `{code, message}`, sent nested under `error`) or
 * the `error` of `response.failed`. `statusCode` is the status that kind of
 * error carries over HTTP (see `statusForErrorKind`); `response.failed` codes
 * that blame the request (`invalid_prompt`, image and policy errors) are 400.
 */
export function responsesStreamError(body: OpenAIErrorObject | null | undefined, headers?: HeaderSource): APIStatusError {
  const code = typeof body?.code === "string" ? body.code : "";
  const requestProblem = requestFailureCodes.has(code) || code.includes("image");
  return errorFromOpenAIErrorObject(body, { headers, status: requestProblem ? 400 : null });
}

/** Options of {@link ResponsesStreamedMessage}. */
export interface ResponsesStreamOptions {
  /** The response headers: errors reported inside the stream take their request id from them. */
  headers?: HeaderSource;
  /** The request's abort signal: an aborted stream ends with an AbortError. */
  signal?: AbortSignal;
}

/**
 * A Responses API result as a kosong {@link StreamedMessage}: from a stream of
 * events (the usual case) or from a whole non-stream response.
 *
 * - text: `response.output_text.delta` and refusals as text parts (a refusal
 *   makes the finish reason `refusal`);
 * - reasoning: summary deltas (`\n\n` between the summaries of one item) and
 *   raw `reasoning_text` deltas as think parts; the item's `encrypted_content`
 *   arrives with `output_item.done` as a signature-only think part
 *   (`{think: "", encrypted}`) that closes the open think;
 * - function calls: a tool call whose id is the item's `call_id` (not its
 *   `fc_…` item id), tagged with the `output_index`, then its argument deltas
 *   with the same index; a call whose arguments never arrived gets the done
 *   item's arguments, or `{}` when it has none;
 * - `id` is the response id (`resp_…`); usage and finish reason come with
 *   `response.completed` / `response.incomplete`;
 * - an `error` event or `response.failed` throws the matching typed error, a
 *   stream that ends without a terminal event throws {@link APIConnectionError}.
 */
export class ResponsesStreamedMessage implements StreamedMessage {
  id: string | null = null;
  usage: TokenUsage | null = null;
  finishReason: FinishReason | null = null;
  rawFinishReason: string | null = null;

  readonly #source: AsyncIterable<ResponseStreamEvent> | ResponsesResponse;
  readonly #options: ResponsesStreamOptions;
  #sawToolCall = false;
  #sawRefusal = false;

  constructor(source: AsyncIterable<ResponseStreamEvent> | ResponsesResponse, options: ResponsesStreamOptions) {
    this.#source = source;
    this.#options = options;
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamedMessagePart> {
    const source = this.#source;
    return Symbol.asyncIterator in source ? this.#mapStream(source) : this.#mapResponse(source);
  }

  #finish(response: ResponsesResponse): void {
    if (response.id) this.id = response.id;
    if (response.usage) this.usage = responsesTokenUsage(response.usage);
    const { finishReason, raw } = responsesFinishReason(response, this.#sawToolCall, this.#sawRefusal);
    this.finishReason = finishReason;
    this.rawFinishReason = raw;
  }

  async *#mapResponse(response: ResponsesResponse): AsyncGenerator<StreamedMessagePart> {
    this.id = response.id;
    for (const item of response.output ?? []) {
      if (item.type === "message") {
        for (const content of item.content ?? []) {
          if (content.type === "output_text") yield { type: "text", text: content.text };
          else if (content.type === "refusal") {
            this.#sawRefusal = true;
            yield { type: "text", text: content.refusal };
          }
        }
      } else if (item.type === "function_call") {
        this.#sawToolCall = true;
        yield {
          type: "function",
          id: item.call_id || item.id || crypto.randomUUID(),
          function: { name: item.name, arguments: item.arguments || "{}" },
        };
      } else if (item.type === "reasoning") {
        const encrypted = item.encrypted_content ?? null;
        const texts = item.summary?.length ? item.summary : (item.content ?? []);
        for (const summary of texts) yield { type: "think", think: summary.text, encrypted };
        if (texts.length === 0 && encrypted) yield { type: "think", think: "", encrypted };
      }
    }
    if (response.status === "failed") throw responsesStreamError(response.error, this.#options.headers);
    this.#finish(response);
  }

  async *#mapStream(events: AsyncIterable<ResponseStreamEvent>): AsyncGenerator<StreamedMessagePart> {
    const { signal, headers } = this.#options;
    // Output indexes of function calls whose arguments have started to arrive.
    const withArguments = new Set<number>();
    let lastSummary = -1;
    let terminated = false;
    try {
      for await (const event of events) {
        switch (event.type) {
          case "response.output_text.delta":
            yield { type: "text", text: event.delta };
            break;
          case "response.refusal.delta":
            this.#sawRefusal = true;
            yield { type: "text", text: event.delta };
            break;
          case "response.function_call_arguments.delta":
            if (event.delta) {
              withArguments.add(event.output_index);
              yield { type: "tool_call_part", arguments_part: event.delta, index: event.output_index };
            }
            break;
          case "response.reasoning_summary_text.delta":
          case "response.reasoning_text.delta":
            yield { type: "think", think: event.delta, encrypted: null };
            break;
          case "response.reasoning_summary_part.added":
            if (event.summary_index > 0 && event.summary_index !== lastSummary) {
              yield { type: "think", think: "\n\n", encrypted: null };
            }
            lastSummary = event.summary_index;
            break;
          case "response.output_item.added": {
            const item = event.item;
            lastSummary = -1;
            if (item.type === "function_call") {
              this.#sawToolCall = true;
              const args = item.arguments || null;
              if (args !== null) withArguments.add(event.output_index);
              const call: StreamedToolCall = {
                type: "function",
                id: item.call_id || item.id || crypto.randomUUID(),
                function: { name: item.name ?? "", arguments: args },
                index: event.output_index,
              };
              yield call;
            }
            break;
          }
          case "response.output_item.done": {
            const item = event.item;
            if (item.type === "reasoning") {
              if (item.encrypted_content) yield { type: "think", think: "", encrypted: item.encrypted_content };
            } else if (item.type === "function_call" && !withArguments.has(event.output_index)) {
              withArguments.add(event.output_index);
              yield { type: "tool_call_part", arguments_part: item.arguments || "{}", index: event.output_index };
            }
            break;
          }
          case "response.created":
            this.id = event.response.id;
            break;
          case "response.completed":
          case "response.incomplete":
            terminated = true;
            this.#finish(event.response);
            break;
          case "response.failed":
            terminated = true;
            this.#finish(event.response);
            throw responsesStreamError(event.response.error, headers);
          case "error":
            throw responsesStreamError(errorEventBody(event), headers);
        }
      }
    } catch (error) {
      throw convertOpenAIError(error, signal);
    }
    if (signal?.aborted) throw abortError(signal);
    if (!terminated) throw new APIConnectionError("The response stream ended before the response was completed.");
  }
}

/** The error of an `error` event: documented flat (`code`, `message`), sent nested under `error`. */
function errorEventBody(event: ResponseStreamEvent & { type: "error" }): OpenAIErrorObject {
  const nested = (event as { error?: unknown }).error;
  return typeof nested === "object" && nested !== null ? nested : event;
}
