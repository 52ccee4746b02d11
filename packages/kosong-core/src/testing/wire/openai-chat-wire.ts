/**
 * OpenAI Chat Completions wire rendering of a scripted reply: stream chunks
 * (`chat.completion.chunk`, role-first delta, tool calls by `index`, a
 * finish chunk with an empty delta, a `choices: []` usage chunk) and the
 * non-stream `chat.completion` body.
 */
import type { FinishReason } from "../../chat-provider.js";
import type { JsonValue } from "../../message.js";
import type { TokenUsage } from "../../token-usage.js";
import { argumentFragments, effectiveFinishReason, type RenderedStream, type ScriptedReply, usageInput } from "./scripted-reply.js";
import type { FakeStreamError, JsonObject } from "./wire-format.js";

const finishReasons: Record<FinishReason, string> = {
  stop: "stop",
  tool_calls: "tool_calls",
  max_tokens: "length",
  content_filter: "content_filter",
  refusal: "stop",
  error: "stop",
  other: "stop",
};

function finishReasonOf(reply: ScriptedReply): string {
  return reply.rawFinishReason ?? finishReasons[effectiveFinishReason(reply)];
}

function usageJson(usage: TokenUsage): JsonObject {
  const prompt = usageInput(usage);
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    total_tokens: prompt + usage.output,
    prompt_tokens_details: { cached_tokens: usage.input_cache_read, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

/** Renders `reply` as Chat Completions stream chunks. */
export function renderOpenAIChatStream(reply: ScriptedReply): RenderedStream {
  const chunk = (delta: JsonObject, finishReason: string | null = null): JsonObject => ({
    id: reply.id,
    object: "chat.completion.chunk",
    created: reply.created,
    model: reply.model,
    system_fingerprint: "fp_fake",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  const events: JsonObject[] = [chunk({ role: "assistant", content: "", refusal: null })];
  // A reply that finishes with `refusal` carries its text as the refusal, as OpenAI sends one.
  const textKey = effectiveFinishReason(reply) === "refusal" ? "refusal" : "content";
  for (const part of reply.message.content) {
    if (part.type === "text") events.push(chunk({ [textKey]: part.text }));
    else if (part.type === "think") events.push(chunk({ [reply.reasoningKey]: part.think }));
  }
  (reply.message.tool_calls ?? []).forEach((call, index) => {
    events.push(
      chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }),
    );
    for (const fragment of argumentFragments(call.function.arguments, reply.argumentsChunkSize)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
    }
  });
  const tail: JsonObject[] = [chunk({}, finishReasonOf(reply))];
  if (reply.usage) {
    tail.push({
      id: reply.id,
      object: "chat.completion.chunk",
      created: reply.created,
      model: reply.model,
      system_fingerprint: "fp_fake",
      choices: [],
      usage: usageJson(reply.usage),
    });
  }
  return { events, tail };
}

/** Renders `reply` as a non-stream `chat.completion` body. */
export function renderOpenAIChatJson(reply: ScriptedReply): JsonObject {
  let text: string | null = null;
  let think: string | null = null;
  for (const part of reply.message.content) {
    if (part.type === "text") text = (text ?? "") + part.text;
    else if (part.type === "think") think = (think ?? "") + part.think;
  }
  const refused = effectiveFinishReason(reply) === "refusal";
  const message: JsonObject = { role: "assistant", content: refused ? null : text, refusal: refused ? text : null, annotations: [] };
  if (think !== null) message[reply.reasoningKey] = think;
  const calls = reply.message.tool_calls ?? [];
  if (calls.length > 0) {
    message.tool_calls = calls.map(
      (call): JsonValue => ({ id: call.id, type: "function", function: { name: call.function.name, arguments: call.function.arguments ?? "" } }),
    );
  }
  const body: JsonObject = {
    id: reply.id,
    object: "chat.completion",
    created: reply.created,
    model: reply.model,
    system_fingerprint: "fp_fake",
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(reply) }],
  };
  if (reply.usage) body.usage = usageJson(reply.usage);
  return body;
}

/** The mid-stream error chunk (`data: {"error": ...}`) that OpenAI sends inside a 200 stream. */
export function openAIChatStreamError(error: FakeStreamError): JsonObject[] {
  return [{ error: { message: error.message, type: error.type, param: null, code: error.code ?? null } }];
}
