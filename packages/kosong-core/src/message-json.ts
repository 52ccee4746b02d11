/**
 * The JSON form of a message: one JSONL line, byte-compatible with kosong and
 * kimi-cli (`Message.model_dump_json(exclude_none=True)`).
 *
 * Writing: keys in kosong's order; `content` is a plain string exactly when it
 * holds one text part, otherwise a list; null/undefined top-level fields are
 * omitted (so is a tool call's null `arguments`); inside a list of parts a
 * think part keeps `"encrypted": null` and a media part keeps `"id": null`.
 *
 * Reading is tolerant where kosong is (string content, missing `arguments`,
 * null fields, unknown extra keys) and strict elsewhere: anything else is a
 * {@link MessageParseError} naming the bad field.
 */
import { MessageParseError } from "./errors.js";
import type { ContentPart, JsonValue, MediaURL, Message, Role, ToolCall } from "./message.js";

function partJson(part: ContentPart): unknown {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "think":
      return { type: "think", think: part.think, encrypted: part.encrypted ?? null };
    case "image_url":
      return { type: "image_url", image_url: mediaJson(part.image_url) };
    case "audio_url":
      return { type: "audio_url", audio_url: mediaJson(part.audio_url) };
    case "video_url":
      return { type: "video_url", video_url: mediaJson(part.video_url) };
  }
}

function mediaJson(media: MediaURL): unknown {
  return { url: media.url, id: media.id ?? null };
}

function toolCallJson(call: ToolCall): unknown {
  const fn: Record<string, unknown> = { name: call.function.name };
  if (call.function.arguments != null) fn.arguments = call.function.arguments;
  const out: Record<string, unknown> = { type: "function", id: call.id, function: fn };
  if (call.extras != null) out.extras = call.extras;
  return out;
}

/** The kosong JSON object of a message (what {@link serializeMessage} stringifies). */
export function messageToJson(message: Message): Record<string, unknown> {
  const out: Record<string, unknown> = { role: message.role };
  if (message.name != null) out.name = message.name;
  const content = message.content;
  const only = content.length === 1 ? content[0]! : undefined;
  out.content = only?.type === "text" ? only.text : content.map(partJson);
  if (message.tool_calls != null) out.tool_calls = message.tool_calls.map(toolCallJson);
  if (message.tool_call_id != null) out.tool_call_id = message.tool_call_id;
  if (message.partial != null) out.partial = message.partial;
  return out;
}

/** One JSONL line (no trailing newline) for `message`, byte-identical to what kosong writes. */
export function serializeMessage(message: Message): string {
  return JSON.stringify(messageToJson(message));
}

type Obj = Record<string, unknown>;

/** A plain object (what JSON has): not an array, a Date, a Map or any other class instance. */
function isObject(value: unknown): value is Obj {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function fail(path: string, problem: string): never {
  throw new MessageParseError(path, problem);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return isObject(value) ? "an object" : `an instance of ${className(value)}`;
  if (typeof value === "number" || typeof value === "string" || typeof value === "boolean") return `${typeof value} ${JSON.stringify(value)}`;
  return typeof value === "bigint" ? "a BigInt" : String(typeof value);
}

function className(value: object): string {
  const name: unknown = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === "string" && name !== "" ? name : "a class";
}

/**
 * A copy of a caller's value that must be JSON (tool-call `extras`), or a
 * {@link MessageParseError} naming the first place that is not: a function,
 * symbol, BigInt, `undefined`, NaN or an infinity, a class instance (Date,
 * Map, ...), a symbol key, or a cycle. JSON text never needs this: what
 * `JSON.parse` returns is JSON.
 */
function jsonCopy(value: unknown, path: string, ancestors: unknown[]): JsonValue {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) fail(path, `expected a JSON value, got ${String(value)}`);
      return value;
    case "object":
      break;
    default:
      return fail(path, `expected a JSON value, got ${describe(value)}`);
  }
  if (value === null) return null;
  if (ancestors.includes(value)) fail(path, "expected a JSON value, got a cycle (a value that contains itself)");
  ancestors.push(value);
  let copy: JsonValue;
  if (Array.isArray(value)) {
    copy = Array.from(value, (item: unknown, i) => jsonCopy(item, `${path}[${i}]`, ancestors));
  } else {
    if (!isObject(value)) fail(path, `expected a JSON value, got ${describe(value)}`);
    if (Object.getOwnPropertySymbols(value).length > 0) fail(path, "expected a JSON object, got an object with symbol keys");
    const out: { [key: string]: JsonValue } = {};
    for (const key of Object.keys(value)) out[key] = jsonCopy(value[key], `${path}.${key}`, ancestors);
    copy = out;
  }
  ancestors.pop();
  return copy;
}

function str(obj: Obj, key: string, path: string): string {
  const v = obj[key];
  if (typeof v !== "string") fail(`${path}${key}`, `expected a string, got ${describe(v)}`);
  return v;
}

function optStr(obj: Obj, key: string, path: string): string | null {
  const v = obj[key];
  if (v == null) return null;
  if (typeof v !== "string") fail(`${path}${key}`, `expected a string or null, got ${describe(v)}`);
  return v;
}

function media(value: unknown, path: string): MediaURL {
  if (!isObject(value)) fail(path, `expected an object, got ${describe(value)}`);
  return { url: str(value, "url", `${path}.`), id: optStr(value, "id", `${path}.`) };
}

/** Reads one content part as {@link parseMessage} reads the parts of a message (a parsed value, never JSON text). */
export function parseContentPart(value: unknown): ContentPart {
  return parsePart(value, "");
}

/** Reads one tool call as {@link parseMessage} reads the calls of a message (a parsed value, never JSON text). */
export function parseToolCall(value: unknown): ToolCall {
  return readToolCall(value, "", false);
}

function parsePart(value: unknown, path: string): ContentPart {
  if (!isObject(value)) fail(path, `expected a content part object, got ${describe(value)}`);
  const p = path ? `${path}.` : "";
  switch (value.type) {
    case "text":
      return { type: "text", text: str(value, "text", p) };
    case "think":
      return { type: "think", think: str(value, "think", p), encrypted: optStr(value, "encrypted", p) };
    case "image_url":
      return { type: "image_url", image_url: media(value.image_url, `${p}image_url`) };
    case "audio_url":
      return { type: "audio_url", audio_url: media(value.audio_url, `${p}audio_url`) };
    case "video_url":
      return { type: "video_url", video_url: media(value.video_url, `${p}video_url`) };
    default:
      return fail(`${p}type`, `unknown content part type ${describe(value.type)}`);
  }
}

function readToolCall(value: unknown, path: string, owned: boolean): ToolCall {
  if (!isObject(value)) fail(path, `expected a tool call object, got ${describe(value)}`);
  const p = path ? `${path}.` : "";
  if (value.type != null && value.type !== "function") fail(`${p}type`, `expected "function", got ${describe(value.type)}`);
  const fn = value.function;
  if (!isObject(fn)) fail(`${p}function`, `expected an object, got ${describe(fn)}`);
  const call: ToolCall = {
    type: "function",
    id: str(value, "id", p),
    function: { name: str(fn, "name", `${p}function.`), arguments: optStr(fn, "arguments", `${p}function.`) },
  };
  const extras = value.extras;
  if (extras != null) {
    if (!isObject(extras)) fail(`${p}extras`, `expected an object or null, got ${describe(extras)}`);
    // Freshly parsed JSON text is ours to keep; a caller's value is checked and copied.
    call.extras = (owned ? extras : jsonCopy(extras, `${p}extras`, [])) as Record<string, JsonValue>;
  }
  return call;
}

const roles: ReadonlySet<string> = new Set<Role>(["system", "user", "assistant", "tool"]);

/**
 * Reads a message from a JSON string or an already parsed value, validating
 * every field. Throws {@link MessageParseError} (with the offending path) for
 * invalid JSON, an unknown role, an unknown content part type, a field of
 * the wrong type, or anything in a value that JSON cannot hold (a function,
 * symbol, BigInt, NaN, an infinity, a cycle, a class instance such as a Date
 * or a Map), tool-call `extras` included: what is accepted is stored as it
 * was given. The result shares no objects with the input.
 */
export function parseMessage(input: string | unknown): Message {
  let value: unknown = input;
  const owned = typeof input === "string";
  if (owned) {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw new MessageParseError("", `not valid JSON (${(error as Error).message})`, { cause: error });
    }
  }
  if (!isObject(value)) fail("", `expected a JSON object, got ${describe(value)}`);
  const role = value.role;
  if (typeof role !== "string" || !roles.has(role)) fail("role", `expected system|user|assistant|tool, got ${describe(role)}`);

  const raw = value.content;
  let content: ContentPart[];
  if (typeof raw === "string") content = [{ type: "text", text: raw }];
  else if (raw == null) content = [];
  else if (Array.isArray(raw)) content = Array.from(raw as unknown[], (part, i) => parsePart(part, `content[${i}]`));
  else fail("content", `expected a string or a list of parts, got ${describe(raw)}`);

  const message: Message = { role: role as Role, content };
  const name = optStr(value, "name", "");
  if (name !== null) message.name = name;
  const calls = value.tool_calls;
  if (calls != null) {
    if (!Array.isArray(calls)) fail("tool_calls", `expected a list, got ${describe(calls)}`);
    message.tool_calls = Array.from(calls as unknown[], (c, i) => readToolCall(c, `tool_calls[${i}]`, owned));
  }
  const toolCallId = optStr(value, "tool_call_id", "");
  if (toolCallId !== null) message.tool_call_id = toolCallId;
  const partial = value.partial;
  if (partial != null) {
    if (typeof partial !== "boolean") fail("partial", `expected a boolean or null, got ${describe(partial)}`);
    message.partial = partial;
  }
  return message;
}
