/**
 * Multi-turn replays: each recorded conversation is continued by kosong
 * itself (our merged assistant message and our tool results go back into the
 * history), and the request we send next must be the one the recording
 * shows (compared without `cache_control`, which kosong adds on purpose).
 *
 * - llm-anthropic recordings: signed thinking + tool call, then the answer;
 *   two parallel calls of a no-argument tool, then the answer.
 * - anthropic-sdk-typescript's ToolRunner nock recording (10 records): three
 *   tool loops run with `step()` and real tools, and every record's request
 *   rebuilt from kosong messages.
 */
import { readFileSync } from "node:fs";
import {
  SimpleToolset,
  assistantMessage,
  defineTool,
  generate,
  step,
  toolCall,
  toolMessage,
  toolResultToMessage,
  userMessage,
  type ContentPart,
  type Message,
  type Tool,
} from "@kosong/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { anthropicFixture, anthropicProvider } from "./helpers.js";
import { recordedBlocks } from "./recorded-events.js";
import { useFakeProviderServer } from "../helpers/fake-server.js";

type Json = Record<string, unknown>;

interface Sources {
  [file: string]: { http: { request: { body: { messages: Json[]; tools: Json[]; thinking?: Json } } } };
}

const sources = JSON.parse(readFileSync(anthropicFixture("_sources.json"), "utf8")) as Sources;

/** A request body part with string contents spelled as text blocks and without cache_control. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (typeof value !== "object" || value === null) return value;
  const out: Json = {};
  for (const [key, v] of Object.entries(value as Json)) {
    if (key === "cache_control") continue;
    const isMessageContent = key === "content" && "role" in (value as Json);
    out[key] = isMessageContent && typeof v === "string" ? [{ type: "text", text: v }] : normalize(v);
  }
  return out;
}

const server = useFakeProviderServer({ resetBeforeEach: true });

describe("llm-anthropic recordings continued by kosong", () => {
  it("sends the signed thinking block back verbatim with the tool result", async () => {
    const turn1 = anthropicFixture("stream-thinking-then-tool-use.sse");
    const turn2 = anthropicFixture("stream-thinking-then-tool-use.turn2.sse");
    server.enqueue({ fixture: turn1 }, { fixture: turn2 });
    const recorded = sources["stream-thinking-then-tool-use.turn2.sse"]!.http.request.body;
    const provider = anthropicProvider(server, { model: "claude-haiku-4-5-20251001", toolMessageConversion: "extract_text" }).withThinking("low");
    const tools: Tool[] = [{ name: "fixed_version", description: "Return a fixed test version string", parameters: { properties: {}, type: "object" } }];
    const history: Message[] = [userMessage((recorded.messages[0]!.content as Array<{ text: string }>)[0]!.text)];

    const first = await generate(provider, "", tools, history);
    history.push(first.message, toolMessage(first.message.tool_calls![0]!.id, "0.32a0"));
    const second = await generate(provider, "", tools, history);

    const sent = server.requests[1]!.body!;
    expect(normalize(sent.messages)).toEqual(normalize(recorded.messages));
    expect(normalize(sent.tools)).toEqual(normalize(recorded.tools));
    expect(sent.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
    expect(second.message.content).toEqual([{ type: "text", text: recordedBlocks(turn2)[0]!.text }]);
  });

  it("answers two parallel calls of a no-argument tool in one user message", async () => {
    server.enqueue({ fixture: anthropicFixture("stream-parallel-tool-use.sse") }, { fixture: anthropicFixture("stream-text-after-tool-results.sse") });
    const recorded = sources["stream-text-after-tool-results.sse"]!.http.request.body;
    const provider = anthropicProvider(server, { model: "claude-haiku-4-5-20251001", toolMessageConversion: "extract_text" });
    const tools: Tool[] = [{ name: "pelican_name_generator", description: "", parameters: { properties: {}, type: "object" } }];
    const history: Message[] = [userMessage("Two names for a pet pelican")];

    const first = await generate(provider, "", tools, history);
    expect(first.message.tool_calls!.map((c) => c.function.arguments)).toEqual(["{}", "{}"]);
    const [a, b] = first.message.tool_calls!;
    history.push(first.message, toolMessage(a!.id, "Charles"), toolMessage(b!.id, "Sammy"));
    await generate(provider, "", tools, history);

    const expected = normalize(recorded.messages) as Array<{ role: string; content: Json[] }>;
    // The recording's client (llm-anthropic) sent a placeholder " " text block
    // before the tool calls; kosong sends the assistant message it received,
    // which has no text at all.
    expected[1]!.content = expected[1]!.content.filter((block) => block.type !== "text");
    expect(normalize(server.requests[1]!.body!.messages)).toEqual(expected);
  });
});

interface NockRecord {
  body: { messages: Array<{ role: "user" | "assistant"; content: string | Json[] }>; tools?: Json[]; max_tokens: number; model: string };
  response: { id: string; content: Json[]; stop_reason: string };
}

const records = JSON.parse(readFileSync(anthropicFixture("nonstream-tool-runner-multiturn.nock.json"), "utf8")) as NockRecord[];

/** The kosong history a recorded request was made from. */
function historyOf(messages: NockRecord["body"]["messages"]): Message[] {
  const history: Message[] = [];
  for (const message of messages) {
    if (typeof message.content === "string") {
      history.push(message.role === "user" ? userMessage(message.content) : assistantMessage(message.content));
      continue;
    }
    const parts: ContentPart[] = [];
    const calls = [];
    for (const block of message.content) {
      if (block.type === "text") parts.push({ type: "text", text: block.text as string });
      else if (block.type === "tool_use") calls.push(toolCall(block.id as string, block.name as string, block.input as Json));
      else if (block.type === "tool_result") history.push(toolMessage(block.tool_use_id as string, block.content as string));
    }
    if (parts.length > 0 || calls.length > 0) history.push(message.role === "user" ? userMessage(parts) : assistantMessage(parts, calls));
  }
  return history;
}

describe("anthropic-sdk-typescript ToolRunner recording", () => {
  it("has 10 records", () => {
    expect(records).toHaveLength(10);
  });

  it.each([
    ["0-1", 0, z.object({ value: z.string() }), () => "Tool result"],
    ["2-3", 2, z.object({ count: z.number() }), (p: { count: number }) => `Called with ${p.count}`],
    ["4-5", 4, z.object({ input: z.string() }), () => "Tool result"],
  ] as const)("runs the tool loop of records %s with step() and a real tool", async (_records, first, parameters, execute) => {
    const [call, answer] = [records[first]!, records[first + 1]!];
    server.enqueue({ status: 200, body: call.response as never }, { status: 200, body: answer.response as never });
    const tool = defineTool({ name: "test_tool", description: "A test tool", parameters, execute: (p) => execute(p as never) });
    const provider = anthropicProvider(server, { model: call.body.model, stream: false, maxTokens: call.body.max_tokens, toolMessageConversion: "extract_text" });
    const history: Message[] = historyOf(call.body.messages);

    const result = await step(provider, "", new SimpleToolset([tool]), history);
    expect(result.toolCalls.map((c) => JSON.parse(c.function.arguments!))).toEqual(
      call.response.content.filter((b) => b.type === "tool_use").map((b) => b.input),
    );
    history.push(result.message, ...(await result.toolResults()).map(toolResultToMessage));
    const final = await step(provider, "", new SimpleToolset([tool]), history);

    expect(normalize(server.requests[1]!.body!.messages)).toEqual(normalize(answer.body.messages));
    expect(final.toolCalls).toEqual([]);
    expect(final.id).toBe(answer.response.id);
    expect(final.message.content).toEqual([{ type: "text", text: answer.response.content[0]!.text }]);
    expect(final.finishReason).toBe("stop");
  });

  it.each(records.map((record, i) => [i, record] as const))("rebuilds the request of record %i from kosong messages", async (_i, record) => {
    server.enqueue({ status: 200, body: record.response as never });
    const provider = anthropicProvider(server, { model: record.body.model, stream: false, maxTokens: record.body.max_tokens, toolMessageConversion: "extract_text" });
    const tools: Tool[] = (record.body.tools ?? []).map((t) => ({
      name: t.name as string,
      description: t.description as string,
      parameters: t.input_schema as Tool["parameters"],
    }));
    const result = await generate(provider, "", tools, historyOf(record.body.messages));
    const sent = server.requests[0]!.body!;
    expect(normalize(sent.messages)).toEqual(normalize(record.body.messages));
    expect(sent.max_tokens).toBe(record.body.max_tokens);
    expect((sent.tools as Json[]).map((t) => t.name)).toEqual((record.body.tools ?? []).map((t) => t.name));
    expect(result.id).toBe(record.response.id);
    expect(result.finishReason).toBe(record.response.stop_reason === "tool_use" ? "tool_calls" : "stop");
  });
});
