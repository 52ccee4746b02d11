/**
 * Conversion of a kosong conversation to the body of an Anthropic Messages
 * request, as kosong's Anthropic provider does it:
 *
 * - the system prompt becomes one system text block with `cache_control`
 *   (no `system` at all when it is empty);
 * - a `system` message inside the history becomes a user message
 *   `<system>...</system>`;
 * - think parts with a signature (`encrypted`) become `thinking` blocks sent
 *   back verbatim, unsigned ones are dropped; a signed part with empty text
 *   (a `redacted_thinking` block, stored so) goes back as `redacted_thinking`
 *   with its `data`;
 * - tool results become `tool_result` blocks in a user message, and
 *   consecutive tool results share one user message;
 * - images become `image` blocks (URL, or base64 from a `data:` URI);
 * - the last tool and the last block of the last message get `cache_control`.
 *
 * Deliberate differences from kosong, each covered by a test: empty text
 * blocks are left out (the API rejects them with a 400); tool-call arguments
 * that are not a JSON object are sent as `{}` (as newer kosong does) instead
 * of failing the whole request, while the history keeps them unchanged.
 */
import type { Tool } from "../chat-provider.js";
import { ChatProviderError } from "../errors.js";
import type { ContentPart, ImageURLPart, Message, VideoURLPart } from "../message.js";
import { extractText } from "../message.js";
import type {
  AnthropicContentBlock,
  AnthropicImageBlock,
  AnthropicMessageParam,
  AnthropicTextBlock,
  AnthropicToolParam,
  AnthropicToolResultBlock,
  AnthropicToolResultContentBlock,
  AnthropicVideoURLBlock,
} from "./anthropic-wire.js";

/** How tool results are sent: as their parts (default), or as their text joined by newlines. */
export type AnthropicToolMessageConversion = "extract_text";

/** Options of {@link convertAnthropicRequest}. */
export interface AnthropicConversionOptions {
  toolMessageConversion?: AnthropicToolMessageConversion | null;
  /**
   * Send `video_url` parts as `video_url` blocks (Kimi's agent gateway accepts
   * them); otherwise video parts are left out, as the Anthropic API has no
   * video input.
   */
  allowVideoURL?: boolean;
}

/** The conversation part of a Messages request body. */
export interface AnthropicRequestBody {
  system?: AnthropicTextBlock[];
  messages: AnthropicMessageParam[];
  tools: AnthropicToolParam[];
}

const base64MediaTypes: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const cacheableBlocks: ReadonlySet<string> = new Set(["text", "image", "tool_use", "tool_result"]);

function ephemeral(): { type: "ephemeral" } {
  return { type: "ephemeral" };
}

function shorten(url: string): string {
  return url.length > 80 ? `${url.slice(0, 80)}...` : url;
}

/** The `image` block for an image part; throws {@link ChatProviderError} for a malformed or unsupported data URI. */
export function anthropicImageBlock(part: ImageURLPart): AnthropicImageBlock {
  const url = part.image_url.url;
  if (!url.startsWith("data:")) return { type: "image", source: { type: "url", url } };
  const rest = url.slice(5);
  const marker = rest.indexOf(";base64,");
  if (marker < 0) throw new ChatProviderError(`Invalid data URL for image: ${shorten(url)}`);
  const mediaType = rest.slice(0, marker);
  if (!base64MediaTypes.has(mediaType)) {
    throw new ChatProviderError(`Unsupported media type for base64 image: ${mediaType}, url: ${shorten(url)}`);
  }
  return { type: "image", source: { type: "base64", data: rest.slice(marker + 8), media_type: mediaType } };
}

function videoBlock(part: VideoURLPart): AnthropicVideoURLBlock {
  return { type: "video_url", video_url: { url: part.video_url.url, id: part.video_url.id ?? null } };
}

/** Escapes raw control characters inside JSON strings (what Python's `json.loads(strict=False)` tolerates). */
function escapeControlCharsInStrings(text: string): string {
  let out = "";
  let inString = false;
  let escaped = false;
  for (const ch of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"') inString = false;
      else if (ch < " ") {
        out += `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
        continue;
      }
    } else if (ch === '"') inString = true;
    out += ch;
  }
  return out;
}

/**
 * The `input` object of a tool call: its JSON arguments parsed (raw control
 * characters inside strings tolerated); `{}` for absent, empty, malformed or
 * non-object arguments.
 */
export function parseToolCallInput(args: string | null | undefined): Record<string, unknown> {
  if (!args) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    try {
      parsed = JSON.parse(escapeControlCharsInStrings(args));
    } catch {
      return {};
    }
  }
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}

/**
 * The block for a text, image or video part, shared by chat messages and tool
 * results: null when the part is dropped (empty text, video not allowed),
 * undefined for any other kind of part.
 */
function mediaOrTextBlock(part: ContentPart, allowVideoURL: boolean): AnthropicToolResultContentBlock | null | undefined {
  switch (part.type) {
    case "text":
      return part.text ? { type: "text", text: part.text } : null;
    case "image_url":
      return anthropicImageBlock(part);
    case "video_url":
      return allowVideoURL ? videoBlock(part) : null;
    default:
      return undefined;
  }
}

function toolResultContent(parts: ContentPart[], allowVideoURL: boolean): AnthropicToolResultContentBlock[] {
  const blocks: AnthropicToolResultContentBlock[] = [];
  for (const part of parts) {
    const block = mediaOrTextBlock(part, allowVideoURL);
    if (block === undefined) throw new ChatProviderError(`Anthropic API does not support ${part.type} parts in tool results`);
    if (block !== null) blocks.push(block);
  }
  return blocks;
}

function toolResultBlock(message: Message, options: AnthropicConversionOptions): AnthropicToolResultBlock {
  if (message.tool_call_id == null) throw new ChatProviderError("Tool message missing `tool_call_id`.");
  const content =
    options.toolMessageConversion === "extract_text"
      ? extractText(message, "\n")
      : toolResultContent(message.content, options.allowVideoURL ?? false);
  return { type: "tool_result", tool_use_id: message.tool_call_id, content };
}

function chatBlocks(message: Message, allowVideoURL: boolean): AnthropicContentBlock[] {
  const blocks: AnthropicContentBlock[] = [];
  for (const part of message.content) {
    if (part.type === "think") {
      // Unsigned thinking cannot be verified by the API: drop it. A signed part without
      // text is a redacted block (how it is stored): it goes back unmodified, as one.
      if (part.encrypted == null) continue;
      const signed = part.encrypted;
      blocks.push(part.think === "" ? { type: "redacted_thinking", data: signed } : { type: "thinking", thinking: part.think, signature: signed });
      continue;
    }
    const block = mediaOrTextBlock(part, allowVideoURL);
    if (block != null) blocks.push(block);
  }
  for (const call of message.tool_calls ?? []) {
    blocks.push({ type: "tool_use", id: call.id, name: call.function.name, input: parseToolCallInput(call.function.arguments) });
  }
  return blocks;
}

/** The Anthropic tool definitions for `tools` (the last one carries `cache_control`). */
export function convertAnthropicTools(tools: readonly Tool[]): AnthropicToolParam[] {
  const out: AnthropicToolParam[] = tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters,
  }));
  const last = out[out.length - 1];
  if (last) last.cache_control = ephemeral();
  return out;
}

/**
 * The Anthropic request messages for `history`. Throws
 * {@link ChatProviderError} for a tool message without `tool_call_id`, an
 * unsupported part in a tool result, or an unusable image data URI.
 */
export function convertAnthropicMessages(
  history: readonly Message[],
  options: AnthropicConversionOptions = {},
): AnthropicMessageParam[] {
  const allowVideoURL = options.allowVideoURL ?? false;
  const messages: AnthropicMessageParam[] = [];
  let openToolResults: AnthropicMessageParam | null = null;
  for (const message of history) {
    if (message.role === "tool") {
      const block = toolResultBlock(message, options);
      if (openToolResults) openToolResults.content.push(block);
      else {
        openToolResults = { role: "user", content: [block] };
        messages.push(openToolResults);
      }
      continue;
    }
    openToolResults = null;
    if (message.role === "system") {
      messages.push({ role: "user", content: [{ type: "text", text: `<system>${extractText(message, "\n")}</system>` }] });
    } else {
      messages.push({ role: message.role, content: chatBlocks(message, allowVideoURL) });
    }
  }
  const lastBlock = messages[messages.length - 1]?.content.at(-1);
  if (lastBlock && cacheableBlocks.has(lastBlock.type)) {
    (lastBlock as { cache_control?: { type: "ephemeral" } }).cache_control = ephemeral();
  }
  return messages;
}

/** The `system`, `messages` and `tools` of a Messages request for this conversation. */
export function convertAnthropicRequest(
  systemPrompt: string,
  tools: readonly Tool[],
  history: readonly Message[],
  options: AnthropicConversionOptions = {},
): AnthropicRequestBody {
  const body: AnthropicRequestBody = {
    messages: convertAnthropicMessages(history, options),
    tools: convertAnthropicTools(tools),
  };
  if (systemPrompt) body.system = [{ type: "text", text: systemPrompt, cache_control: ephemeral() }];
  return body;
}
