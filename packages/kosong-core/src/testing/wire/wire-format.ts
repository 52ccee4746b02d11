/**
 * The three wire formats the fake provider server speaks, how a request path
 * selects one, and how each frames a server-sent event.
 */
import type { JsonValue } from "../../message.js";

/** A provider API wire format: OpenAI Chat Completions, OpenAI Responses or Anthropic Messages. */
export type FakeWireFormat = "openai-chat" | "openai-responses" | "anthropic";

/** An error reported inside a 200 stream (or rendered as an error body). */
export interface FakeStreamError {
  /** The provider's error type, e.g. `overloaded_error`, `server_error`, `insufficient_quota`. */
  type: string;
  message: string;
  /** The provider's error code (OpenAI), e.g. `insufficient_quota`. */
  code?: string | null;
}

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** The wire format a request path speaks (query ignored), or null when it is none of the three. */
export function wireFormatOfPath(path: string): FakeWireFormat | null {
  const bare = path.split("?", 1)[0]!.replace(/\/+$/, "");
  if (bare.endsWith("/chat/completions")) return "openai-chat";
  if (bare.endsWith("/responses")) return "openai-responses";
  if (bare.endsWith("/messages")) return "anthropic";
  return null;
}

/**
 * One SSE frame carrying `event` in the framing of `format`: `data:` only for
 * OpenAI Chat, `event: <type>` + `data:` for Anthropic and Responses.
 */
export function sseFrame(format: FakeWireFormat, event: JsonValue): string {
  const data = JSON.stringify(event);
  if (format === "openai-chat") return `data: ${data}\n\n`;
  const type = typeof event === "object" && event !== null && !Array.isArray(event) ? event.type : undefined;
  return typeof type === "string" ? `event: ${type}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
}

/** The frame that ends a stream, if the format has one (`data: [DONE]` for OpenAI Chat). */
export function sseTerminator(format: FakeWireFormat): string | null {
  return format === "openai-chat" ? "data: [DONE]\n\n" : null;
}

/** An HTTP error body in the shape of `format` (Anthropic envelope or OpenAI `{error}`). */
export function errorBody(format: FakeWireFormat | null, error: FakeStreamError): JsonObject {
  if (format === "anthropic") {
    return { type: "error", error: { type: error.type, message: error.message } };
  }
  return { error: { message: error.message, type: error.type, param: null, code: error.code ?? null } };
}

/** Splits an SSE body into its frames, each keeping its trailing blank line. */
export function splitSseFrames(text: string): string[] {
  const frames: string[] = [];
  const separator = /\r?\n\r?\n/g;
  let start = 0;
  for (let match = separator.exec(text); match !== null; match = separator.exec(text)) {
    const end = match.index + match[0].length;
    frames.push(text.slice(start, end));
    start = end;
  }
  if (start < text.length) frames.push(text.slice(start));
  return frames;
}
