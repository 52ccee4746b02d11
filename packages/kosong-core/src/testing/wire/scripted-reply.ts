/**
 * A scripted kosong message as the fake provider server renders it into an
 * API's wire format (stream events or a non-stream JSON body).
 */
import type { FinishReason } from "../../chat-provider.js";
import type { Message } from "../../message.js";
import type { TokenUsage } from "../../token-usage.js";
import type { JsonObject } from "./wire-format.js";

/** Everything a wire renderer needs to know about one scripted reply. */
export interface ScriptedReply {
  message: Message;
  usage: TokenUsage | null;
  /** The response / message id. */
  id: string;
  model: string;
  /** Unix seconds, for the `created` fields. */
  created: number;
  /** Normalised finish reason; defaults to `tool_calls` when the message calls tools, else `stop`. */
  finishReason: FinishReason | null;
  /** The API's own finish/stop reason string; wins over `finishReason`. */
  rawFinishReason: string | null;
  /** OpenAI Chat: the delta/message key that carries think parts (e.g. `reasoning_content`). */
  reasoningKey: string;
  /** Split tool-call arguments into fragments of at most this many characters (default: one fragment). */
  argumentsChunkSize: number | null;
}

/** A rendered stream: the events before the end, and the events that end it normally. */
export interface RenderedStream {
  events: JsonObject[];
  tail: JsonObject[];
}

/** The finish reason a reply ends with. */
export function effectiveFinishReason(reply: ScriptedReply): FinishReason {
  if (reply.finishReason) return reply.finishReason;
  return reply.message.tool_calls && reply.message.tool_calls.length > 0 ? "tool_calls" : "stop";
}

/** Tool-call arguments split into fragments (none for empty arguments). */
export function argumentFragments(args: string | null, chunkSize: number | null): string[] {
  if (!args) return [];
  if (!chunkSize || chunkSize <= 0 || args.length <= chunkSize) return [args];
  const out: string[] = [];
  for (let i = 0; i < args.length; i += chunkSize) out.push(args.slice(i, i + chunkSize));
  return out;
}

/** Total input tokens of a usage record. */
export function usageInput(usage: TokenUsage): number {
  return usage.input_other + usage.input_cache_read + usage.input_cache_creation;
}
