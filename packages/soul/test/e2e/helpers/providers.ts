/**
 * The three real SDK providers of @kosong/core, each pointed at the fake
 * provider server, and readers for what a request sent (so a test can check
 * what the model was shown, whatever the wire format).
 */
import type { ChatProvider } from "@kosong/core";
import { AnthropicProvider } from "@kosong/core/anthropic";
import { OpenAIChatProvider, OpenAIResponsesProvider } from "@kosong/core/openai";
import type { FakeProviderRequest } from "@kosong/core/testing";

/** A provider family: its name and how to build it against a server URL. */
export interface ProviderFamily {
  name: string;
  make(url: string): ChatProvider;
  /** The API's error type for a server-side failure (retryable), as an in-stream error event carries it. */
  serverErrorType: string;
}

export const families: ProviderFamily[] = [
  { name: "OpenAIChatProvider", make: (url) => new OpenAIChatProvider({ model: "gpt-4.1", apiKey: "test-key", baseURL: `${url}/v1` }), serverErrorType: "server_error" },
  { name: "OpenAIResponsesProvider", make: (url) => new OpenAIResponsesProvider({ model: "gpt-5", apiKey: "test-key", baseURL: `${url}/v1` }), serverErrorType: "server_error" },
  { name: "AnthropicProvider", make: (url) => new AnthropicProvider({ model: "claude-opus-4-8", apiKey: "test-key", baseURL: url }), serverErrorType: "api_error" },
];

/** The text of a content value as the three APIs send it: a string, or a list of blocks with `text`. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block) => (isObject(block) && typeof block.text === "string" ? block.text : "")).join("");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The tool results a request sent, by call id, as text: Chat Completions
 * `tool` messages, Responses `function_call_output` items, Anthropic
 * `tool_result` blocks.
 */
export function sentToolResults(request: FakeProviderRequest): Record<string, string> {
  const body = request.body ?? {};
  const out: Record<string, string> = {};
  const items = [...(Array.isArray(body.messages) ? body.messages : []), ...(Array.isArray(body.input) ? body.input : [])];
  for (const item of items) {
    if (!isObject(item)) continue;
    if (item.role === "tool" && typeof item.tool_call_id === "string") out[item.tool_call_id] = textOf(item.content);
    if (item.type === "function_call_output" && typeof item.call_id === "string") out[item.call_id] = textOf(item.output);
    if (item.role === "user" && Array.isArray(item.content)) {
      for (const block of item.content) {
        if (isObject(block) && block.type === "tool_result" && typeof block.tool_use_id === "string") out[block.tool_use_id] = textOf(block.content);
      }
    }
  }
  return out;
}

/** Every user text a request sent, in order (tool results excluded). */
export function sentUserTexts(request: FakeProviderRequest): string[] {
  const body = request.body ?? {};
  const items = [...(Array.isArray(body.messages) ? body.messages : []), ...(Array.isArray(body.input) ? body.input : [])];
  const texts: string[] = [];
  for (const item of items) {
    if (!isObject(item) || item.role !== "user") continue;
    const blocks = Array.isArray(item.content) ? item.content.filter((b) => !(isObject(b) && b.type === "tool_result")) : item.content;
    const text = Array.isArray(blocks) ? blocks.map((b) => (isObject(b) && typeof b.text === "string" ? b.text : "")).join("") : textOf(blocks);
    if (text !== "") texts.push(text);
  }
  return texts;
}
