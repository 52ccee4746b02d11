/**
 * Anthropic Messages wire rendering of a scripted reply: `message_start`,
 * content blocks (text, thinking with a `signature_delta`, redacted thinking
 * for a think part that is only a signature, `tool_use` with
 * `input_json_delta` fragments), a cumulative `message_delta` usage and
 * `message_stop`; and the non-stream `message` body.
 */
import type { FinishReason } from "../../chat-provider.js";
import type { ContentPart, JsonValue, ToolCall } from "../../message.js";
import type { TokenUsage } from "../../token-usage.js";
import { argumentFragments, effectiveFinishReason, type RenderedStream, type ScriptedReply } from "./scripted-reply.js";
import type { FakeStreamError, JsonObject } from "./wire-format.js";

const stopReasons: Record<FinishReason, string> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  max_tokens: "max_tokens",
  content_filter: "refusal",
  refusal: "refusal",
  error: "end_turn",
  other: "stop_sequence",
};

function stopReasonOf(reply: ScriptedReply): string {
  return reply.rawFinishReason ?? stopReasons[effectiveFinishReason(reply)];
}

function usageJson(usage: TokenUsage | null, output?: number): JsonObject {
  const u = usage ?? { input_other: 0, output: 0, input_cache_read: 0, input_cache_creation: 0 };
  return {
    input_tokens: u.input_other,
    cache_creation_input_tokens: u.input_cache_creation,
    cache_read_input_tokens: u.input_cache_read,
    output_tokens: output ?? u.output,
  };
}

/** Content blocks as they would be sent: consecutive text parts share a block; a think part with a signature ends its block. */
type Block =
  | { kind: "text"; deltas: string[] }
  | { kind: "thinking"; deltas: string[]; signature: string | null }
  | { kind: "redacted"; data: string }
  | { kind: "tool_use"; call: ToolCall };

function blocksOf(content: readonly ContentPart[], calls: readonly ToolCall[]): Block[] {
  const blocks: Block[] = [];
  for (const part of content) {
    const open = blocks[blocks.length - 1];
    if (part.type === "text") {
      if (open?.kind === "text") open.deltas.push(part.text);
      else blocks.push({ kind: "text", deltas: [part.text] });
    } else if (part.type === "think") {
      const encrypted = part.encrypted ?? null;
      if (open?.kind === "thinking" && open.signature === null) {
        if (part.think) open.deltas.push(part.think);
        open.signature = encrypted;
      } else if (part.think === "" && encrypted !== null) {
        blocks.push({ kind: "redacted", data: encrypted });
      } else {
        blocks.push({ kind: "thinking", deltas: part.think ? [part.think] : [], signature: encrypted });
      }
    }
  }
  for (const call of calls) blocks.push({ kind: "tool_use", call });
  return blocks;
}

function toolInput(call: ToolCall): JsonValue {
  const args = call.function.arguments;
  if (!args) return {};
  try {
    return JSON.parse(args) as JsonValue;
  } catch {
    throw new Error(`fake provider server: tool call ${call.id} has arguments that are not JSON: ${args}`);
  }
}

/** Renders `reply` as Anthropic Messages stream events. */
export function renderAnthropicStream(reply: ScriptedReply): RenderedStream {
  const events: JsonObject[] = [
    {
      type: "message_start",
      message: {
        id: reply.id,
        type: "message",
        role: "assistant",
        model: reply.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usageJson(reply.usage, Math.min(1, reply.usage?.output ?? 0)),
      },
    },
  ];
  blocksOf(reply.message.content, reply.message.tool_calls ?? []).forEach((block, index) => {
    const delta = (d: JsonObject): JsonObject => ({ type: "content_block_delta", index, delta: d });
    switch (block.kind) {
      case "text":
        events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
        for (const text of block.deltas) events.push(delta({ type: "text_delta", text }));
        break;
      case "thinking":
        events.push({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } });
        for (const thinking of block.deltas) events.push(delta({ type: "thinking_delta", thinking }));
        if (block.signature !== null) events.push(delta({ type: "signature_delta", signature: block.signature }));
        break;
      case "redacted":
        events.push({ type: "content_block_start", index, content_block: { type: "redacted_thinking", data: block.data } });
        break;
      case "tool_use": {
        const { call } = block;
        events.push({ type: "content_block_start", index, content_block: { type: "tool_use", id: call.id, name: call.function.name, input: {} } });
        const fragments = argumentFragments(call.function.arguments, reply.argumentsChunkSize);
        for (const partial_json of fragments.length > 0 ? fragments : [""]) events.push(delta({ type: "input_json_delta", partial_json }));
        break;
      }
    }
    events.push({ type: "content_block_stop", index });
  });
  const tail: JsonObject[] = [
    { type: "message_delta", delta: { stop_reason: stopReasonOf(reply), stop_sequence: null }, usage: usageJson(reply.usage) },
    { type: "message_stop" },
  ];
  return { events, tail };
}

/** Renders `reply` as a non-stream Anthropic `message` body. */
export function renderAnthropicJson(reply: ScriptedReply): JsonObject {
  const content = blocksOf(reply.message.content, reply.message.tool_calls ?? []).map((block): JsonValue => {
    switch (block.kind) {
      case "text":
        return { type: "text", text: block.deltas.join("") };
      case "thinking":
        return { type: "thinking", thinking: block.deltas.join(""), signature: block.signature ?? "" };
      case "redacted":
        return { type: "redacted_thinking", data: block.data };
      case "tool_use":
        return { type: "tool_use", id: block.call.id, name: block.call.function.name, input: toolInput(block.call) };
    }
  });
  return {
    id: reply.id,
    type: "message",
    role: "assistant",
    model: reply.model,
    content,
    stop_reason: stopReasonOf(reply),
    stop_sequence: null,
    usage: usageJson(reply.usage),
  };
}

/** The `event: error` frame payload Anthropic sends inside a 200 stream. */
export function anthropicStreamError(error: FakeStreamError): JsonObject[] {
  return [{ type: "error", error: { type: error.type, message: error.message } }];
}
