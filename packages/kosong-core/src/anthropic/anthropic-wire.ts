/**
 * The parts of the Anthropic Messages wire format that kosong writes and
 * reads. Declared here rather than taken from `@anthropic-ai/sdk` so that the
 * conversion code does not depend on one SDK version's type names (the SDK is
 * an optional peer dependency with a wide version range) and so that
 * non-standard blocks some gateways accept (`video_url`) can be expressed.
 */
import type { JsonSchema } from "../chat-provider.js";

/** `cache_control` marker for a prompt-cache breakpoint. */
export interface AnthropicCacheControl {
  type: "ephemeral";
}

/** A text block. */
export interface AnthropicTextBlock {
  type: "text";
  text: string;
  cache_control?: AnthropicCacheControl;
}

/** An image block: a URL or base64 data with its media type. */
export interface AnthropicImageBlock {
  type: "image";
  source: { type: "url"; url: string } | { type: "base64"; data: string; media_type: string };
  cache_control?: AnthropicCacheControl;
}

/** A video block, accepted only by Kimi's agent gateway (`agent-gw` base URLs). */
export interface AnthropicVideoURLBlock {
  type: "video_url";
  video_url: { url: string; id: string | null };
}

/** A signed thinking block sent back to the API. */
export interface AnthropicThinkingBlock {
  type: "thinking";
  thinking: string;
  signature: string;
}

/** Thinking the API redacted, sent back as it came. */
export interface AnthropicRedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}

/** A tool call the assistant made. */
export interface AnthropicToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
  cache_control?: AnthropicCacheControl;
}

/** A block inside a `tool_result`. */
export type AnthropicToolResultContentBlock = AnthropicTextBlock | AnthropicImageBlock | AnthropicVideoURLBlock;

/** The result of a tool call, sent in a user message. */
export interface AnthropicToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string | AnthropicToolResultContentBlock[];
  cache_control?: AnthropicCacheControl;
}

/** Any block kosong puts into a request message. */
export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicVideoURLBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock;

/** A request message. */
export interface AnthropicMessageParam {
  role: "user" | "assistant";
  content: AnthropicContentBlock[];
}

/** A tool definition. */
export interface AnthropicToolParam {
  name: string;
  description: string;
  input_schema: JsonSchema;
  cache_control?: AnthropicCacheControl;
}

/** Token counters as the API reports them (any may be absent or null on compatible servers). */
export interface AnthropicWireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** A content block of a response (only the fields kosong reads). */
export interface AnthropicWireContentBlock {
  type: string;
  text?: string;
  thinking?: string;
  signature?: string;
  data?: string;
  id?: string;
  name?: string;
  input?: unknown;
}

/** A complete (non-stream) response message, or the `message` of `message_start`. */
export interface AnthropicWireMessage {
  id?: string | null;
  content?: AnthropicWireContentBlock[] | null;
  stop_reason?: string | null;
  usage?: AnthropicWireUsage | null;
}

/** The `delta` of a `content_block_delta` or `message_delta` event. */
export interface AnthropicWireDelta {
  type?: string;
  text?: string;
  thinking?: string;
  partial_json?: string;
  signature?: string;
  stop_reason?: string | null;
}

/** One server-sent event of a streamed response (only the fields kosong reads). */
export interface AnthropicWireEvent {
  type: string;
  index?: number;
  message?: AnthropicWireMessage;
  content_block?: AnthropicWireContentBlock;
  delta?: AnthropicWireDelta;
  usage?: AnthropicWireUsage | null;
}
