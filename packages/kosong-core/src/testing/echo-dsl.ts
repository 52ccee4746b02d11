/**
 * kosong's echo DSL: a tiny script language that describes one streamed
 * assistant response, line by line, as `kind: payload`.
 *
 * Empty lines, `#` comments, markdown fences (lines starting with three
 * backticks) and a bare `echo` line are ignored. Kinds (case-insensitive):
 *
 * - `id: echo-42`: the message id.
 * - `usage: {"input_other": 10, "output": 2}` or `usage: input_other=10 output=2`:
 *   token usage (missing counters are 0).
 * - `text: Hello` / `think: hmm`: a text / think part. One space after the
 *   colon is dropped, the rest is kept; surrounding quotes are removed.
 * - `image_url`, `audio_url`, `video_url`: a raw URL or `{"url": "...", "id": "opt"}`.
 * - `tool_call: {"id": "c1", "name": "search", "arguments": "{\"q\": 1}"}` (or the
 *   key=value form; `function.name` / `function.arguments` are accepted too;
 *   optional `extras` object).
 * - `tool_call_part: {"arguments_part": "..."}`, a raw string, or `null`: an
 *   argument fragment of the open call (an object or list is JSON-encoded).
 * - `error: 429 Slow down`, `error: connection [message]`, `error: timeout [message]`:
 *   the response fails with an {@link APIStatusError} (built like a provider's,
 *   so `error: 400 prompt is too long` is a context overflow),
 *   {@link APIConnectionError} or {@link APITimeoutError}. Before the message, a
 *   status error accepts `retry_after=<s>`, `retry_after_ms=<ms>`, `type=<t>`,
 *   `code=<c>` and `request_id=<id>` tokens. Lines after an `error` line are
 *   not read. When parts come before it they stream first and the error ends
 *   the stream; otherwise `generate` itself rejects.
 * - `finish_reason: max_tokens` (an addition to kosong's DSL): the
 *   normalised finish reason to report instead of the derived one.
 *
 * Error messages are kosong's, word for word (values quoted as Python's `repr`).
 */
import type { FinishReason } from "../chat-provider.js";
import { APIConnectionError, APITimeoutError, ChatProviderError } from "../errors.js";
import type { JsonValue, StreamedMessagePart, ToolCall } from "../message.js";
import { createStatusError } from "../status-error.js";
import type { TokenUsage } from "../token-usage.js";
import { pythonRepr, pythonStringRepr, pythonTypeName } from "./python-repr.js";

/** What one echo script describes. */
export interface EchoScript {
  /** The parts to stream, in order. */
  parts: StreamedMessagePart[];
  /** The message id (`id:`), or null. */
  id: string | null;
  /** The token usage (`usage:`), or null. */
  usage: TokenUsage | null;
  /** The finish reason (`finish_reason:`), or null to derive it from the parts. */
  finishReason: FinishReason | null;
  /** The failure (`error:`) that follows the parts, or null. */
  error: ChatProviderError | null;
}

type Mapping = Record<string, unknown>;

const lineBreak = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

const errorOption = /^(retry_after_ms|retry_after|type|code|request_id)=(\S+)(?:\s+|$)/;

const finishReasons: readonly FinishReason[] = ["stop", "tool_calls", "max_tokens", "content_filter", "refusal", "error", "other"];

/**
 * Parses an echo script. Throws a {@link ChatProviderError} with kosong's
 * message for a malformed line (a malformed `error:` line included); a
 * well-formed `error:` line is returned in {@link EchoScript.error}, not thrown.
 */
export function parseEchoScript(script: string): EchoScript {
  const result: EchoScript = { parts: [], id: null, usage: null, finishReason: null, error: null };
  const lines = script.split(lineBreak);
  for (let index = 0; index < lines.length; index++) {
    const rawLine = lines[index]!;
    const lineno = index + 1;
    const line = rawLine.trim();
    if (!line || line.startsWith("#") || line.startsWith("```") || line.toLowerCase() === "echo") continue;
    const colon = line.indexOf(":");
    if (colon < 0) throw new ChatProviderError(`Invalid echo DSL at line ${lineno}: ${pythonStringRepr(rawLine)}`);
    const kind = line.slice(0, colon).trim().toLowerCase();
    let payload = line.slice(colon + 1);
    if (payload.startsWith(" ")) payload = payload.slice(1);
    switch (kind) {
      case "error":
        result.error = parseError(payload.trim(), lineno, rawLine);
        return result;
      case "id":
        result.id = stripQuotes(payload.trim());
        break;
      case "usage":
        result.usage = parseUsage(payload);
        break;
      case "finish_reason":
        result.finishReason = parseFinishReason(payload);
        break;
      default:
        result.parts.push(parsePart(kind, payload, lineno, rawLine));
    }
  }
  return result;
}

function parsePart(kind: string, payload: string, lineno: number, rawLine: string): StreamedMessagePart {
  switch (kind) {
    case "text":
      return { type: "text", text: stripQuotes(payload) };
    case "think":
      return { type: "think", think: stripQuotes(payload), encrypted: null };
    case "image_url": {
      const [url, id] = parseURLPayload(payload, kind);
      return { type: "image_url", image_url: { url, id } };
    }
    case "audio_url": {
      const [url, id] = parseURLPayload(payload, kind);
      return { type: "audio_url", audio_url: { url, id } };
    }
    case "video_url": {
      const [url, id] = parseURLPayload(payload, kind);
      return { type: "video_url", video_url: { url, id } };
    }
    case "tool_call":
      return parseToolCall(payload, lineno, rawLine);
    case "tool_call_part":
      return { type: "tool_call_part", arguments_part: parseArgumentsPart(payload) };
    default:
      throw new ChatProviderError(`Unknown echo DSL kind '${kind}' at line ${lineno}: ${pythonStringRepr(rawLine)}`);
  }
}

function parseUsage(payload: string): TokenUsage {
  const mapping = parseMapping(payload, "usage");
  const int = (key: string): number => {
    const value = Object.hasOwn(mapping, key) ? mapping[key] : 0;
    const parsed = pythonInt(value);
    if (parsed === null) throw new ChatProviderError(`Usage field '${key}' must be an integer, got ${pythonRepr(value)}`);
    return parsed;
  };
  return {
    input_other: int("input_other"),
    output: int("output"),
    input_cache_read: int("input_cache_read"),
    input_cache_creation: int("input_cache_creation"),
  };
}

/** Python's `int(value)` for a JSON value, or null where Python raises. */
function pythonInt(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? Math.trunc(value) : null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "string" && /^\s*[+-]?\d+(?:_\d+)*\s*$/.test(value)) return Number.parseInt(value.replaceAll("_", ""), 10);
  return null;
}

function parseFinishReason(payload: string): FinishReason {
  const value = stripQuotes(payload.trim());
  const reason = finishReasons.find((r) => r === value);
  if (!reason) throw new ChatProviderError(`finish_reason must be one of ${finishReasons.join(", ")}, got ${pythonStringRepr(value)}`);
  return reason;
}

function parseURLPayload(payload: string, kind: string): [string, string | null] {
  const value = parseValue(payload);
  if (isMapping(value)) {
    const url = value.url;
    if (typeof url !== "string") throw new ChatProviderError(`${kind} requires a url field, got ${pythonRepr(value)}`);
    const id = value.id ?? null;
    if (id !== null && typeof id !== "string") throw new ChatProviderError(`${kind} id must be a string when provided.`);
    return [url, id];
  }
  if (typeof value !== "string") throw new ChatProviderError(`${kind} expects url string or object, got ${pythonRepr(value)}`);
  return [value, null];
}

function parseToolCall(payload: string, lineno: number, rawLine: string): ToolCall {
  const mapping = parseMapping(payload, "tool_call");
  // Python truthiness: an empty `function` object counts as absent, and so does a falsy `name`.
  const fn = isMapping(mapping.function) && Object.keys(mapping.function).length > 0 ? mapping.function : null;
  const id = mapping.id;
  const name = pythonTruthy(mapping.name) ? mapping.name : fn ? fn.name : null;
  let args = mapping.arguments ?? null;
  let extras = mapping.extras ?? null;
  if (fn) {
    if (args === null) args = fn.arguments ?? null;
    if (extras === null) extras = fn.extras ?? null;
  }
  if (typeof id !== "string" || typeof name !== "string") {
    throw new ChatProviderError(`tool_call requires string id and name at line ${lineno}: ${pythonStringRepr(rawLine)}`);
  }
  if (args !== null && typeof args !== "string") {
    throw new ChatProviderError(`tool_call.arguments must be a string at line ${lineno}, got ${pythonTypeName(args)}`);
  }
  const call: ToolCall = { type: "function", id, function: { name, arguments: args } };
  if (isMapping(extras)) call.extras = extras as Record<string, JsonValue>;
  return call;
}

function parseArgumentsPart(payload: string): string | null {
  const value = parseValue(payload);
  const part = isMapping(value) ? (value.arguments_part ?? null) : value;
  if (part === null || part === "") return null;
  if (typeof part === "string") return part;
  // kosong encodes objects and lists with json.dumps(separators=(",", ":")); scalars become their JSON text.
  return pythonJsonDumps(part);
}

function parseError(payload: string, lineno: number, rawLine: string): ChatProviderError {
  if (!payload) throw new ChatProviderError(`Empty error payload at line ${lineno}: ${pythonStringRepr(rawLine)}`);
  const space = payload.indexOf(" ");
  const first = space < 0 ? payload : payload.slice(0, space);
  let message = space < 0 ? "" : payload.slice(space + 1).trim();
  const lower = first.toLowerCase();
  if (lower === "connection") return new APIConnectionError(message || "Simulated connection error");
  if (lower === "timeout") return new APITimeoutError(message || "Simulated timeout error");
  if (!/^[+-]?\d+(?:_\d+)*$/.test(first)) {
    throw new ChatProviderError(
      `Invalid error spec at line ${lineno}: expected status code or 'connection'/'timeout', got ${pythonStringRepr(first)}`,
    );
  }
  const statusCode = Number.parseInt(first.replaceAll("_", ""), 10);
  let retryAfterMs: number | null = null;
  let errorType: string | null = null;
  let errorCode: string | null = null;
  let requestId: string | null = null;
  for (let match = errorOption.exec(message); match !== null; match = errorOption.exec(message)) {
    const key = match[1]!;
    const value = match[2]!;
    if (key === "type") errorType = value;
    else if (key === "code") errorCode = value;
    else if (key === "request_id") requestId = value;
    else {
      const amount = Number(value);
      if (!Number.isFinite(amount) || amount < 0) {
        throw new ChatProviderError(`Invalid ${key} at line ${lineno}: expected a non-negative number, got ${pythonStringRepr(value)}`);
      }
      retryAfterMs = key === "retry_after" ? amount * 1000 : amount;
    }
    message = message.slice(match[0].length);
  }
  return createStatusError(statusCode, message || `Simulated ${statusCode} error`, { retryAfterMs, errorType, errorCode, requestId });
}

/** kosong's `_parse_mapping`: a JSON object, or `key=value` tokens separated by spaces or commas. */
function parseMapping(raw: string, context: string): Mapping {
  const text = raw.trim();
  const loaded = tryJson(text);
  if (loaded.ok && isMapping(loaded.value)) return loaded.value;
  if (loaded.ok && loaded.value !== null) {
    throw new ChatProviderError(`${context} payload must be an object, got ${pythonRepr(loaded.value)}`);
  }
  const mapping: Mapping = {};
  let empty = true;
  for (const token of text.replaceAll(",", " ").split(/\s+/)) {
    if (!token) continue;
    const eq = token.indexOf("=");
    if (eq < 0) throw new ChatProviderError(`Invalid token '${token}' in ${context} payload.`);
    mapping[token.slice(0, eq).trim()] = parseValue(token.slice(eq + 1).trim());
    empty = false;
  }
  if (empty) throw new ChatProviderError(`${context} payload cannot be empty.`);
  return mapping;
}

/** kosong's `_parse_value`: empty/`null`/`none` → null, JSON when it parses, else the text without surrounding quotes. */
function parseValue(raw: string): unknown {
  const text = raw.trim();
  if (!text) return null;
  const lowered = text.toLowerCase();
  if (lowered === "null" || lowered === "none") return null;
  const loaded = tryJson(text);
  return loaded.ok ? loaded.value : stripQuotes(text);
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function stripQuotes(value: string): string {
  if (value.length >= 2 && value[0] === value[value.length - 1] && (value[0] === "'" || value[0] === '"')) {
    return value.slice(1, -1);
  }
  return value;
}

function isMapping(value: unknown): value is Mapping {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function pythonTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (isMapping(value)) return Object.keys(value).length > 0;
  return Boolean(value);
}

/** `json.dumps(value, separators=(",", ":"))`: compact, with non-ASCII escaped as Python does. */
function pythonJsonDumps(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
