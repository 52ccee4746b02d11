/**
 * Request conversion for the OpenAI Chat Completions API (and the servers
 * that speak it), as kosong's `openai_legacy` and `kimi` providers do it.
 * Pure functions: no SDK, no I/O.
 */
import type { JsonSchema, ThinkingEffort, Tool } from "../chat-provider.js";
import type { ContentPart, JsonValue, Message } from "../message.js";

/**
 * The rules that differ between OpenAI Chat Completions servers. The plain
 * OpenAI dialect is all defaults; the Kimi preset turns on its own rules.
 */
export interface ChatDialect {
  /**
   * The message field carrying reasoning: read from responses into think
   * parts and written back on assistant messages. A list (the default:
   * `reasoning_content`, used by DeepSeek, Kimi, llama.cpp and older vLLM, and
   * `reasoning`, used by current vLLM, Ollama, OpenRouter and Groq) reads
   * whichever of them a response carries; the provider then writes think
   * parts back in the field the server used (see {@link reasoningFieldForHost}
   * before it has answered). A single name reads and writes only that field.
   * Null: think parts are neither read nor sent.
   */
  reasoningKey: string | readonly string[] | null;
  /**
   * Write the reasoning field whenever an assistant message has a think part,
   * even an empty one, and read an empty streamed reasoning as an empty think
   * part (Kimi: preserved-thinking backends require the field on every
   * assistant message that reasoned).
   */
  keepEmptyReasoning: boolean;
  /** `extract_text`: send a tool result as one string (its text parts joined by newlines). */
  toolMessageConversion: "extract_text" | null;
  /** Kimi: a tool whose name starts with `$` is a server builtin (`{type: "builtin_function"}`). */
  builtinFunctions: boolean;
  /** Kimi: give tool parameter properties that lack a `type` an inferred one (Moonshot rejects them). */
  normalizeToolSchemas: boolean;
}

/** The reasoning fields OpenAI-compatible servers use, in the order they are looked for. */
export const reasoningFields: readonly string[] = ["reasoning_content", "reasoning"];

/**
 * The field to write reasoning back in for a server that has not answered
 * with reasoning yet: none for OpenAI's own API (it rejects unknown message
 * fields and never reasons in Chat Completions), `reasoning` for the servers
 * that name it so (OpenRouter, Groq, Ollama's default port), and
 * `reasoning_content` for the rest (DeepSeek, Kimi, llama.cpp, vLLM).
 */
export function reasoningFieldForHost(baseURL: string): string | null {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return "reasoning_content";
  }
  if (url.hostname === "api.openai.com") return null;
  if (url.hostname.endsWith("openrouter.ai") || url.hostname.endsWith("groq.com") || url.port === "11434") return "reasoning";
  return "reasoning_content";
}

/** The plain OpenAI dialect: reasoning read from either field servers use (see {@link ChatDialect.reasoningKey}). */
export const openAIDialect: ChatDialect = {
  reasoningKey: reasoningFields,
  keepEmptyReasoning: false,
  toolMessageConversion: null,
  builtinFunctions: false,
  normalizeToolSchemas: false,
};

/** A Chat Completions message as sent on the wire. */
export type ChatWireMessage = Record<string, unknown>;

function wirePart(part: Exclude<ContentPart, { type: "think" }>): Record<string, unknown> {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image_url":
      return { type: "image_url", image_url: { url: part.image_url.url, id: part.image_url.id ?? null } };
    case "audio_url":
      return { type: "audio_url", audio_url: { url: part.audio_url.url, id: part.audio_url.id ?? null } };
    case "video_url":
      return { type: "video_url", video_url: { url: part.video_url.url, id: part.video_url.id ?? null } };
  }
}

function isBlank(parts: readonly ContentPart[]): boolean {
  for (const part of parts) {
    if (part.type === "think") continue;
    if (part.type !== "text" || part.text.trim() !== "") return false;
  }
  return true;
}

/**
 * One kosong message as a Chat Completions message, as kosong dumps it
 * (`model_dump(exclude_none=True)`): `content` is a string when it is one
 * text part, otherwise a list of parts (media keep `id: null`); think parts
 * are removed from the content and, when the dialect has a reasoning key,
 * joined into that field (written only for a single field name: the
 * provider resolves a list of candidates before converting).
 *
 * Deliberate differences from upstream: an assistant message with tool calls
 * and no visible content omits `content` for every dialect (upstream does it
 * for Kimi only; OpenAI also accepts it and some compatible servers reject
 * an empty content), and `partial` and tool-call `extras` (kosong
 * bookkeeping) are not sent: strict servers reject unknown fields.
 */
export function toChatMessage(message: Message, dialect: ChatDialect = openAIDialect): ChatWireMessage {
  const out: ChatWireMessage = { role: message.role };
  if (message.name != null) out.name = message.name;

  let reasoning = "";
  let hasThink = false;
  let visible: Exclude<ContentPart, { type: "think" }>[] | null = null;
  const content = message.content;
  for (let i = 0; i < content.length; i++) {
    const part = content[i]!;
    if (part.type === "think") {
      reasoning += part.think;
      if (!hasThink) {
        hasThink = true;
        visible = content.slice(0, i) as Exclude<ContentPart, { type: "think" }>[];
      }
    } else if (visible) {
      visible.push(part);
    }
  }
  const parts = visible ?? (content as Exclude<ContentPart, { type: "think" }>[]);
  const toolCalls = message.tool_calls;

  if (message.role === "tool" && dialect.toolMessageConversion === "extract_text") {
    out.content = parts
      .filter((p) => p.type === "text")
      .map((p) => (p as { text: string }).text)
      .join("\n");
  } else if (!(message.role === "assistant" && toolCalls && toolCalls.length > 0 && isBlank(parts))) {
    const only = parts.length === 1 ? parts[0]! : undefined;
    out.content = only?.type === "text" ? only.text : parts.map(wirePart);
  }

  if (toolCalls && toolCalls.length > 0) {
    // OpenAI requires `arguments`: a call whose arguments never arrived is sent with none, `{}`.
    out.tool_calls = toolCalls.map((call) => ({
      type: "function",
      id: call.id,
      function: { name: call.function.name, arguments: call.function.arguments || "{}" },
    }));
  }
  if (message.tool_call_id != null) out.tool_call_id = message.tool_call_id;
  const key = dialect.reasoningKey;
  if (typeof key === "string" && (reasoning !== "" || (hasThink && dialect.keepEmptyReasoning))) out[key] = reasoning;
  return out;
}

/** The `messages` of a request: the system prompt first (as `system`, when not empty), then the history. */
export function toChatMessages(
  systemPrompt: string,
  history: readonly Message[],
  dialect: ChatDialect = openAIDialect,
): ChatWireMessage[] {
  const messages: ChatWireMessage[] = [];
  // `system`, not `developer`: many OpenAI-compatible servers reject `developer`.
  if (systemPrompt) messages.push({ role: "system", content: systemPrompt });
  for (const message of history) messages.push(toChatMessage(message, dialect));
  return messages;
}

/** A tool as a Chat Completions tool definition. */
export function toChatTool(tool: Tool, dialect: ChatDialect = openAIDialect): Record<string, unknown> {
  if (dialect.builtinFunctions && tool.name.startsWith("$")) {
    // Kimi builtin functions: the server knows their description and parameters.
    return { type: "builtin_function", function: { name: tool.name } };
  }
  const parameters = dialect.normalizeToolSchemas ? normalizeToolSchema(tool.parameters) : tool.parameters;
  return { type: "function", function: { name: tool.name, description: tool.description, parameters } };
}

/** True when some message of the history holds a think part. */
export function historyHasThinking(history: readonly Message[]): boolean {
  for (const message of history) for (const part of message.content) if (part.type === "think") return true;
  return false;
}

/** OpenAI `reasoning_effort` values this package sends (null: reasoning off). */
export type OpenAIReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | null;

/**
 * kosong's mapping of a thinking effort to OpenAI's `reasoning_effort`:
 * `off` is null, `low`/`medium`/`high`/`xhigh` map to themselves and `max`
 * (Anthropic's ceiling) clamps to `xhigh`, OpenAI's highest level.
 */
export function toReasoningEffort(effort: ThinkingEffort): OpenAIReasoningEffort {
  return effort === "off" ? null : effort === "max" ? "xhigh" : effort;
}

/** The thinking effort that an OpenAI `reasoning_effort` stands for (`minimal` reads as `low`). */
export function fromReasoningEffort(effort: string | null): ThinkingEffort {
  switch (effort) {
    case "minimal":
    case "low":
      return "low";
    case "medium":
      return "medium";
    case "high":
      return "high";
    case "xhigh":
    case "max":
      return "xhigh";
    default:
      return "off";
  }
}

type SchemaObject = { [key: string]: JsonValue };

function isSchemaObject(value: JsonValue | undefined): value is SchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function jsonTypeOf(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

const typeHints = ["type", "$ref", "anyOf", "oneOf", "allOf", "not"];

function inferPropertyType(schema: SchemaObject): JsonValue | undefined {
  if (typeHints.some((key) => key in schema)) return undefined;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const types = [...new Set(schema.enum.map(jsonTypeOf))];
    if (types.includes("integer") && types.includes("number")) types.splice(types.indexOf("integer"), 1);
    return types.length === 1 ? types[0]! : types;
  }
  if ("const" in schema) return jsonTypeOf(schema.const!);
  return "string";
}

function normalizeSchemaMap(map: SchemaObject, isProperties: boolean): SchemaObject {
  let out: SchemaObject | null = null;
  for (const [key, value] of Object.entries(map)) {
    if (!isSchemaObject(value)) continue;
    let next = normalizeSchema(value);
    if (isProperties) {
      const inferred = inferPropertyType(next);
      if (inferred !== undefined) next = { type: inferred, ...next };
    }
    if (next !== value) (out ??= { ...map })[key] = next;
  }
  return out ?? map;
}

function normalizeSchemaList(list: JsonValue[]): JsonValue[] {
  let out: JsonValue[] | null = null;
  list.forEach((item, i) => {
    if (!isSchemaObject(item)) return;
    const next = normalizeSchema(item);
    if (next !== item) (out ??= [...list])[i] = next;
  });
  return out ?? list;
}

function normalizeSchema(schema: SchemaObject): SchemaObject {
  let out: SchemaObject | null = null;
  const set = (key: string, value: JsonValue, old: JsonValue | undefined) => {
    if (value !== old) (out ??= { ...schema })[key] = value;
  };
  for (const key of ["properties", "$defs", "definitions", "patternProperties"]) {
    const value = schema[key];
    if (isSchemaObject(value)) set(key, normalizeSchemaMap(value, key === "properties"), value);
  }
  for (const key of ["items", "additionalProperties", "not"]) {
    const value = schema[key];
    if (isSchemaObject(value)) set(key, normalizeSchema(value), value);
    else if (key === "items" && Array.isArray(value)) set(key, normalizeSchemaList(value), value);
  }
  for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"]) {
    const value = schema[key];
    if (Array.isArray(value)) set(key, normalizeSchemaList(value), value);
  }
  return out ?? schema;
}

/**
 * Kimi's tool-schema normalisation: every property schema that has no type
 * hint (`type`, `$ref`, `anyOf`, `oneOf`, `allOf`, `not`) gets a `type`
 * inferred from its `enum` values or `const` (a list of types when the enum
 * mixes them), or `string` when it has neither. Moonshot rejects such
 * properties ("type is not defined") although they are valid JSON Schema
 * (MCP servers send them). Copies only what changes; the input is untouched.
 */
export function normalizeToolSchema(schema: JsonSchema): JsonSchema {
  return normalizeSchema(schema);
}
