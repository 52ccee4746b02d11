/**
 * Every response of `../shared/fixtures/compatible-servers/` (216 responses
 * recorded from OpenRouter, OpenAI, Anthropic, xAI, Z.ai, Groq, the Hugging
 * Face router, llama.cpp and Avian; see its README) replays through the
 * providers and the official SDKs from the fake provider server, stream or
 * not as recorded, and is checked field by field against what the recorded
 * body itself says: text, reasoning, tool calls, usage (cached tokens
 * included) and finish reason.
 *
 * The expected values are read from the raw body by a deliberately plain
 * reading of each wire format below (concatenate deltas, take the last usage
 * and finish reason), independent of the providers' code.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { extractText, generate, messageSchema, parseMessage, serializeMessage, userMessage, type ChatProvider, type FinishReason, type GenerateResult, type TokenUsage } from "@kosong/core";
import { AnthropicProvider } from "@kosong/core/anthropic";
import { OpenAIChatProvider } from "@kosong/core/openai";
import { useFakeProviderServer } from "../helpers/fake-server.js";
import { fixture } from "@kosong/test-support";

interface Recorded {
  file: string;
  id: number;
  url: string;
  stream: boolean;
  status: number;
  contentType: string;
  body: string;
}

interface Expected {
  text: string;
  reasoning: string;
  calls: Array<{ id: string; name: string; arguments: unknown }>;
  /** Prompt tokens in total, cached prompt tokens, output tokens (null: no usage reported). */
  usage: { prompt: number; cached: number; output: number } | null;
  finishReason: FinishReason | null;
}

/** Raw recorded JSON, read loosely on purpose (the oracle must not share the providers' wire types). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const recorded = JSON.parse(readFileSync(fixture("compatible-servers/recorded-responses.json"), "utf8")) as Recorded[];

const server = useFakeProviderServer({ resetBeforeEach: true });

function sseData(body: string): Json[] {
  return body
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).trim())
    .filter((data) => data !== "" && data !== "[DONE]")
    .map((data) => JSON.parse(data) as Json);
}

const chatFinish: Record<string, FinishReason> = { stop: "stop", tool_calls: "tool_calls", length: "max_tokens", content_filter: "content_filter" };
const anthropicFinish: Record<string, FinishReason> = { end_turn: "stop", tool_use: "tool_calls", max_tokens: "max_tokens", stop_sequence: "stop", refusal: "refusal" };

function reasoningOf(fields: Json): string {
  for (const key of ["reasoning_content", "reasoning"]) if (typeof fields[key] === "string" && fields[key] !== "") return fields[key] as string;
  return "";
}

function chatUsage(usage: Json | undefined | null): Expected["usage"] {
  if (!usage) return null;
  return { prompt: usage.prompt_tokens ?? 0, cached: usage.prompt_tokens_details?.cached_tokens ?? 0, output: usage.completion_tokens ?? 0 };
}

/** OpenAI Chat Completions: `chat.completion` or `chat.completion.chunk`s (first choice). */
function expectedChat(entry: Recorded): Expected {
  const out: Expected = { text: "", reasoning: "", calls: [], usage: null, finishReason: null };
  let refused = false;
  if (!entry.stream) {
    const body = JSON.parse(entry.body) as Json;
    const choice = body.choices[0];
    const message = choice.message;
    out.text = (message.content ?? "") + (message.refusal ?? "");
    refused = Boolean(message.refusal);
    out.reasoning = reasoningOf(message);
    for (const call of message.tool_calls ?? []) out.calls.push({ id: call.id, name: call.function.name, arguments: call.function.arguments });
    out.usage = chatUsage(body.usage);
    out.finishReason = chatFinish[choice.finish_reason] ?? "other";
  } else {
    const byIndex = new Map<number, { id: string; name: string; arguments: string }>();
    for (const chunk of sseData(entry.body)) {
      if (chunk.usage) out.usage = chatUsage(chunk.usage);
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      if (choice.finish_reason) out.finishReason = chatFinish[choice.finish_reason] ?? "other";
      const delta = choice.delta ?? {};
      out.text += (delta.content ?? "") + (delta.refusal ?? "");
      refused ||= Boolean(delta.refusal);
      out.reasoning += reasoningOf(delta);
      for (const call of delta.tool_calls ?? []) {
        const open = byIndex.get(call.index);
        if (open === undefined || (call.id && call.id !== open.id && call.function?.name)) {
          byIndex.set(call.index, { id: call.id, name: call.function.name, arguments: call.function.arguments ?? "" });
          out.calls.push(byIndex.get(call.index)!);
        } else open.arguments += call.function?.arguments ?? "";
      }
    }
  }
  if (refused) out.finishReason = "refusal";
  return out;
}

function anthropicUsage(usage: Json): NonNullable<Expected["usage"]> {
  const cached = usage.cache_read_input_tokens ?? 0;
  return { prompt: (usage.input_tokens ?? 0) + cached + (usage.cache_creation_input_tokens ?? 0), cached, output: usage.output_tokens ?? 0 };
}

/** Anthropic Messages: a `message`, or its event stream. */
function expectedAnthropic(entry: Recorded): Expected {
  const out: Expected = { text: "", reasoning: "", calls: [], usage: null, finishReason: null };
  if (!entry.stream) {
    const body = JSON.parse(entry.body) as Json;
    for (const block of body.content) {
      if (block.type === "text") out.text += block.text;
      else if (block.type === "thinking") out.reasoning += block.thinking;
      else if (block.type === "tool_use") out.calls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) });
    }
    out.usage = anthropicUsage(body.usage);
    out.finishReason = anthropicFinish[body.stop_reason] ?? "other";
    return out;
  }
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let usage: Json = {};
  for (const event of sseData(entry.body)) {
    if (event.type === "message_start") usage = { ...event.message.usage };
    else if (event.type === "message_delta") {
      for (const [key, value] of Object.entries(event.usage ?? {})) if (value != null) usage[key] = value;
      if (event.delta?.stop_reason) out.finishReason = anthropicFinish[event.delta.stop_reason] ?? "other";
    } else if (event.type === "content_block_start") {
      const block = event.content_block;
      if (block.type === "text") out.text += block.text ?? "";
      else if (block.type === "thinking") out.reasoning += block.thinking ?? "";
      else if (block.type === "tool_use") {
        const call = { id: block.id, name: block.name, arguments: "" };
        calls.set(event.index, call);
        out.calls.push(call);
      }
    } else if (event.type === "content_block_delta") {
      const delta = event.delta;
      if (delta.type === "text_delta") out.text += delta.text;
      else if (delta.type === "thinking_delta") out.reasoning += delta.thinking;
      else if (delta.type === "input_json_delta") {
        // Only client tool calls (`tool_use`); a server tool (`server_tool_use`, web search) is not one.
        const call = calls.get(event.index);
        if (call) call.arguments += delta.partial_json;
      }
    }
  }
  for (const call of out.calls) if (call.arguments === "") call.arguments = "{}";
  out.usage = anthropicUsage(usage);
  return out;
}

function provider(entry: Recorded): ChatProvider {
  return entry.url.endsWith("/messages")
    ? new AnthropicProvider({ model: "claude-sonnet-4-5", apiKey: "test", baseURL: server.url, stream: entry.stream })
    : new OpenAIChatProvider({ model: "m", apiKey: "test", baseURL: `${server.url}/v1`, stream: entry.stream });
}

/** Arguments compared as JSON when they are JSON (Anthropic inputs are re-encoded), else as text. */
function args(text: unknown): unknown {
  try {
    return JSON.parse(String(text));
  } catch {
    return text;
  }
}

function actual(result: GenerateResult): Expected {
  const usage: TokenUsage | null = result.usage;
  return {
    text: extractText(result.message),
    reasoning: result.message.content.map((part) => (part.type === "think" ? part.think : "")).join(""),
    calls: (result.message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: args(call.function.arguments ?? "") })),
    usage: usage && {
      prompt: usage.input_other + usage.input_cache_read + usage.input_cache_creation,
      cached: usage.input_cache_read,
      output: usage.output,
    },
    finishReason: result.finishReason,
  };
}

const cases = recorded.map((entry) => [`${new URL(entry.url).host} ${entry.stream ? "stream" : "json"} ${entry.file.split("/").slice(-2).join("/")} #${entry.id}`, entry] as const);

describe("responses recorded from OpenAI-compatible servers and Anthropic", () => {
  it("covers all 216 recorded responses of nine servers", () => {
    expect(recorded).toHaveLength(216);
    expect(new Set(recorded.map((entry) => new URL(entry.url).host)).size).toBe(9);
  });

  it.each(cases)("%s", async (_name, entry) => {
    server.enqueue(entry.stream ? { sse: [entry.body] } : { status: entry.status, body: JSON.parse(entry.body) as Json });
    const result = await generate(provider(entry), "", [], [userMessage("hi")]);
    const want = entry.url.endsWith("/messages") ? expectedAnthropic(entry) : expectedChat(entry);
    expect(actual(result)).toEqual({ ...want, calls: want.calls.map((call) => ({ ...call, arguments: args(call.arguments) })) });
    // What a provider built is a message both readers accept as is, and its JSON line reads back the same.
    expect(parseMessage(serializeMessage(result.message))).toEqual(result.message);
    expect(messageSchema.parse(result.message)).toEqual(parseMessage(result.message));
  });
});
