/**
 * The message model: plain, JSON-compatible objects whose field names are the
 * wire names of kosong's JSON (`tool_calls`, `tool_call_id`, ...), so that a
 * message read from a provider, a file or a constructor is the same shape.
 *
 * Content is always a list of parts in memory. The JSON form (see
 * `serializeMessage`) writes a single text part as a plain string.
 */

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Plain text. */
export interface TextPart {
  type: "text";
  text: string;
}

/**
 * Model reasoning. `encrypted` holds the provider's signature or encrypted
 * reasoning (Anthropic signature, OpenAI Responses `encrypted_content`); it
 * must be sent back verbatim, and once set the part no longer merges.
 */
export interface ThinkPart {
  type: "think";
  think: string;
  encrypted?: string | null;
}

/** A media reference: a URL (possibly a `data:` URI) and an optional id the model can cite. */
export interface MediaURL {
  url: string;
  id?: string | null;
}

/** An image by URL or data URI. */
export interface ImageURLPart {
  type: "image_url";
  image_url: MediaURL;
}

/** An audio clip by URL or data URI. */
export interface AudioURLPart {
  type: "audio_url";
  audio_url: MediaURL;
}

/** A video by URL or data URI. */
export interface VideoURLPart {
  type: "video_url";
  video_url: MediaURL;
}

/** A part of a message's content, discriminated by `type`. */
export type ContentPart = TextPart | ThinkPart | ImageURLPart | AudioURLPart | VideoURLPart;

/** The type tags of {@link ContentPart}. */
export type ContentPartType = ContentPart["type"];

/** Who sent a message. */
export type Role = "system" | "user" | "assistant" | "tool";

/** The function a tool call invokes: its name and its JSON-encoded arguments (null when absent). */
export interface ToolCallFunction {
  name: string;
  arguments: string | null;
}

/** A tool call requested by the assistant. */
export interface ToolCall {
  type: "function";
  id: string;
  function: ToolCallFunction;
  /** Provider-specific extras that must round-trip (kept as-is). */
  extras?: Record<string, JsonValue>;
}

/**
 * A streamed fragment of the arguments of the tool call that is currently
 * open. Providers that stream several calls at once set `index` to the call's
 * stream index (the same `index` as on the {@link StreamedToolCall}); without
 * it, the fragment belongs to the most recent call.
 */
export interface ToolCallPart {
  type: "tool_call_part";
  arguments_part: string | null;
  index?: number;
}

/** A tool call as it appears in a stream: optionally tagged with its stream index. */
export interface StreamedToolCall extends ToolCall {
  index?: number;
}

/** Anything a {@link StreamedMessage} yields. */
export type StreamedMessagePart = ContentPart | StreamedToolCall | ToolCallPart;

/** A message in a conversation. */
export interface Message {
  role: Role;
  name?: string;
  content: ContentPart[];
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  /** Set on an assistant message that was cut short (for example by an abort). */
  partial?: boolean;
}

/** A text part. */
export function textPart(text: string): TextPart {
  return { type: "text", text };
}

/** A think part, optionally with its signature / encrypted content. */
export function thinkPart(think: string, encrypted: string | null = null): ThinkPart {
  return { type: "think", think, encrypted };
}

/** An image part. */
export function imageURLPart(url: string, id: string | null = null): ImageURLPart {
  return { type: "image_url", image_url: { url, id } };
}

/** An audio part. */
export function audioURLPart(url: string, id: string | null = null): AudioURLPart {
  return { type: "audio_url", audio_url: { url, id } };
}

/** A video part. */
export function videoURLPart(url: string, id: string | null = null): VideoURLPart {
  return { type: "video_url", video_url: { url, id } };
}

/** A complete tool call. `args` may be an object (JSON-encoded here) or an already encoded string. */
export function toolCall(id: string, name: string, args: string | null | Record<string, unknown> = null): ToolCall {
  const encoded = args === null || typeof args === "string" ? args : JSON.stringify(args);
  return { type: "function", id, function: { name, arguments: encoded } };
}

/** A streamed argument fragment. */
export function toolCallPart(argumentsPart: string | null, index?: number): ToolCallPart {
  return index === undefined
    ? { type: "tool_call_part", arguments_part: argumentsPart }
    : { type: "tool_call_part", arguments_part: argumentsPart, index };
}

type ContentInput = string | ContentPart | ContentPart[];

function toParts(content: ContentInput): ContentPart[] {
  if (typeof content === "string") return [textPart(content)];
  return Array.isArray(content) ? content : [content];
}

/** A system message. */
export function systemMessage(content: ContentInput): Message {
  return { role: "system", content: toParts(content) };
}

/** A user message. */
export function userMessage(content: ContentInput): Message {
  return { role: "user", content: toParts(content) };
}

/** An assistant message, optionally with tool calls. */
export function assistantMessage(content: ContentInput, toolCalls?: ToolCall[]): Message {
  const message: Message = { role: "assistant", content: toParts(content) };
  if (toolCalls && toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}

/** A tool result message answering the call `toolCallId`. */
export function toolMessage(toolCallId: string, content: ContentInput): Message {
  return { role: "tool", content: toParts(content), tool_call_id: toolCallId };
}

/** The concatenated text parts of a message (think parts excluded). */
export function extractText(message: Pick<Message, "content">, separator = ""): string {
  const texts: string[] = [];
  for (const part of message.content) if (part.type === "text") texts.push(part.text);
  return texts.join(separator);
}

/** True for the content-part members of a stream (as opposed to tool calls and fragments). */
export function isContentPart(part: StreamedMessagePart): part is ContentPart {
  return part.type !== "function" && part.type !== "tool_call_part";
}
