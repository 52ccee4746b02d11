/**
 * OpenAI Responses wire rendering of a scripted reply: `response.created`,
 * `response.in_progress`, one output item per run of think parts (a
 * `reasoning` item with summary parts and `encrypted_content`), per run of
 * text parts (a `message` item) and per tool call (a `function_call` item
 * whose `call_id` is the kosong tool call id), then `response.completed` (or
 * `response.incomplete` for a max-tokens / content-filter finish). Every
 * event carries a `sequence_number`.
 */
import type { ContentPart, JsonValue, ToolCall } from "../../message.js";
import type { TokenUsage } from "../../token-usage.js";
import { argumentFragments, effectiveFinishReason, type RenderedStream, type ScriptedReply, usageInput } from "./scripted-reply.js";
import type { FakeStreamError, JsonObject } from "./wire-format.js";

type Item =
  | { kind: "reasoning"; id: string; summaries: string[]; encrypted: string | null }
  | { kind: "message"; id: string; deltas: string[] }
  | { kind: "function_call"; id: string; call: ToolCall };

function itemsOf(reply: ScriptedReply): Item[] {
  const items: Item[] = [];
  const suffix = reply.id.replace(/^resp_/, "");
  const nextId = (prefix: string) => `${prefix}_${suffix}_${items.length}`;
  const content: readonly ContentPart[] = reply.message.content;
  for (const part of content) {
    const open = items[items.length - 1];
    if (part.type === "text") {
      if (open?.kind === "message") open.deltas.push(part.text);
      else items.push({ kind: "message", id: nextId("msg"), deltas: [part.text] });
    } else if (part.type === "think") {
      const encrypted = part.encrypted ?? null;
      if (open?.kind === "reasoning" && (open.encrypted === encrypted || (open.encrypted === null && part.think === ""))) {
        if (part.think) open.summaries.push(part.think);
        open.encrypted = encrypted;
      } else {
        items.push({ kind: "reasoning", id: nextId("rs"), summaries: part.think ? [part.think] : [], encrypted });
      }
    }
  }
  for (const call of reply.message.tool_calls ?? []) items.push({ kind: "function_call", id: nextId("fc"), call });
  return items;
}

function itemJson(item: Item, done: boolean): JsonObject {
  const status = done ? "completed" : "in_progress";
  switch (item.kind) {
    case "reasoning":
      return {
        id: item.id,
        type: "reasoning",
        encrypted_content: item.encrypted,
        summary: done ? item.summaries.map((text): JsonValue => ({ type: "summary_text", text })) : [],
      };
    case "message":
      return {
        id: item.id,
        type: "message",
        status,
        role: "assistant",
        content: done ? [{ type: "output_text", text: item.deltas.join(""), annotations: [], logprobs: [] }] : [],
      };
    case "function_call":
      return {
        id: item.id,
        type: "function_call",
        status,
        call_id: item.call.id,
        name: item.call.function.name,
        arguments: done ? (item.call.function.arguments ?? "") : "",
      };
  }
}

function usageJson(usage: TokenUsage): JsonObject {
  const input = usageInput(usage);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.input_cache_read },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + usage.output,
  };
}

function responseJson(reply: ScriptedReply, items: Item[], phase: "start" | "end"): JsonObject {
  const finish = effectiveFinishReason(reply);
  const incomplete = phase === "end" && (finish === "max_tokens" || finish === "content_filter");
  const status = phase === "start" ? "in_progress" : incomplete ? "incomplete" : "completed";
  return {
    id: reply.id,
    object: "response",
    created_at: reply.created,
    status,
    error: null,
    incomplete_details: incomplete ? { reason: reply.rawFinishReason ?? (finish === "max_tokens" ? "max_output_tokens" : "content_filter") } : null,
    model: reply.model,
    output: phase === "start" ? [] : items.map((item) => itemJson(item, true)),
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    usage: phase === "end" && reply.usage ? usageJson(reply.usage) : null,
  };
}

/** Renders `reply` as Responses stream events (with `sequence_number`s). */
export function renderOpenAIResponsesStream(reply: ScriptedReply): RenderedStream {
  const items = itemsOf(reply);
  const events: JsonObject[] = [
    { type: "response.created", response: responseJson(reply, items, "start") },
    { type: "response.in_progress", response: responseJson(reply, items, "start") },
  ];
  items.forEach((item, output_index) => {
    const item_id = item.id;
    events.push({ type: "response.output_item.added", output_index, item: itemJson(item, false) });
    if (item.kind === "reasoning") {
      item.summaries.forEach((text, summary_index) => {
        const at = { item_id, output_index, summary_index };
        events.push({ type: "response.reasoning_summary_part.added", ...at, part: { type: "summary_text", text: "" } });
        events.push({ type: "response.reasoning_summary_text.delta", ...at, delta: text });
        events.push({ type: "response.reasoning_summary_text.done", ...at, text });
        events.push({ type: "response.reasoning_summary_part.done", ...at, part: { type: "summary_text", text } });
      });
    } else if (item.kind === "message") {
      const at = { item_id, output_index, content_index: 0 };
      const text = item.deltas.join("");
      events.push({ type: "response.content_part.added", ...at, part: { type: "output_text", text: "", annotations: [], logprobs: [] } });
      for (const delta of item.deltas) events.push({ type: "response.output_text.delta", ...at, delta, logprobs: [] });
      events.push({ type: "response.output_text.done", ...at, text, logprobs: [] });
      events.push({ type: "response.content_part.done", ...at, part: { type: "output_text", text, annotations: [], logprobs: [] } });
    } else {
      for (const delta of argumentFragments(item.call.function.arguments, reply.argumentsChunkSize)) {
        events.push({ type: "response.function_call_arguments.delta", item_id, output_index, delta });
      }
      events.push({ type: "response.function_call_arguments.done", item_id, output_index, arguments: item.call.function.arguments ?? "" });
    }
    events.push({ type: "response.output_item.done", output_index, item: itemJson(item, true) });
  });
  const end = responseJson(reply, items, "end");
  const tail: JsonObject[] = [{ type: end.status === "incomplete" ? "response.incomplete" : "response.completed", response: end }];
  numberEvents(events, 0);
  numberEvents(tail, events.length);
  return { events, tail };
}

/** Renders `reply` as a non-stream Responses `response` body. */
export function renderOpenAIResponsesJson(reply: ScriptedReply): JsonObject {
  return responseJson(reply, itemsOf(reply), "end");
}

/** Sets `sequence_number` on each event, counting from `start`. */
export function numberEvents(events: JsonObject[], start: number): void {
  events.forEach((event, i) => {
    event.sequence_number = start + i;
  });
}

/** The `error` event and the `response.failed` event Responses sends when a 200 stream fails. */
export function openAIResponsesStreamError(error: FakeStreamError, reply: ScriptedReply | null): JsonObject[] {
  const code = error.code ?? error.type;
  return [
    { type: "error", error: { type: error.type, code, message: error.message, param: null } },
    {
      type: "response.failed",
      response: {
        id: reply?.id ?? "resp_fake",
        object: "response",
        created_at: reply?.created ?? 0,
        status: "failed",
        error: { code, message: error.message },
        incomplete_details: null,
        model: reply?.model ?? "fake-model",
        output: [],
        usage: null,
      },
    },
  ];
}
