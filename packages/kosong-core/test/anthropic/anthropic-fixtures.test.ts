/**
 * Every recorded Anthropic Messages response in
 * provider-streams/anthropic-messages, replayed by the fake server through
 * the official SDK, AnthropicProvider and `generate()`: the merged message,
 * id, usage (cache reads and writes included) and finish reason.
 *
 * Expected contents are derived from the recordings by concatenating their
 * deltas per content block (see recorded-events.ts), independently of the
 * provider's decoder.
 */
import {
  generate,
  tokenUsage,
  toolCall,
  userMessage,
  type ContentPart,
  type FinishReason,
  type StreamedMessagePart,
  type TokenUsage,
  type ToolCall,
} from "@kosong/core";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fixture } from "@kosong/test-support";
import { anthropicFixture as fixturePath, anthropicProvider, streamPaths } from "./helpers.js";
import { recordedBlocks } from "./recorded-events.js";
import { useFakeProviderServer } from "../helpers/fake-server.js";

/** The fixture files replayed by this file's tests. */
const covered = new Set<string>();

function anthropicFixture(name: string): string {
  covered.add(name);
  return fixturePath(name);
}

const server = useFakeProviderServer({ resetBeforeEach: true });

/** The assistant message a recorded stream amounts to, built from its blocks. */
function expectedFromRecording(file: string): { content: ContentPart[]; toolCalls: ToolCall[] } {
  const content: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of recordedBlocks(file)) {
    if (block.type === "text") {
      const last = content.at(-1);
      if (last?.type === "text") last.text += block.text;
      else content.push({ type: "text", text: block.text });
    } else if (block.type === "thinking") content.push({ type: "think", think: block.text, encrypted: block.signature || null });
    else if (block.type === "redacted_thinking") content.push({ type: "think", think: "", encrypted: block.data! });
    else if (block.type === "tool_use") toolCalls.push(toolCall(block.id!, block.name!, block.text === "" ? "{}" : block.text));
  }
  return { content, toolCalls };
}

interface StreamCase {
  file: string;
  id: string;
  usage: TokenUsage;
  finishReason: FinishReason;
}

const streamCases: StreamCase[] = [
  { file: "stream-text.sse", id: "msg_017A4s3HAsrqf5d2WvBmrpLr", usage: tokenUsage({ input_other: 17, output: 10 }), finishReason: "stop" },
  {
    file: "stream-text-then-tool-use.sse",
    id: "msg_019Q1hrJbZG26Fb9BQhrkHEr",
    // message_delta (older shape) carries only output_tokens: input stays from message_start.
    usage: tokenUsage({ input_other: 377, output: 65 }),
    finishReason: "tool_calls",
  },
  { file: "stream-parallel-tool-use.sse", id: "msg_01V2noLbAb2NgKnjaNw6Cn3w", usage: tokenUsage({ input_other: 542, output: 62 }), finishReason: "tool_calls" },
  { file: "stream-text-after-tool-results.sse", id: "msg_01XMATm4UFnjP841TckVuNF4", usage: tokenUsage({ input_other: 678, output: 82 }), finishReason: "stop" },
  { file: "stream-thinking-then-tool-use.sse", id: "msg_01JdU4xqNHXL9QCFWkwCDKGr", usage: tokenUsage({ input_other: 598, output: 92 }), finishReason: "tool_calls" },
  { file: "stream-thinking-then-tool-use.turn2.sse", id: "msg_01Qb3MMmP6RUjBckfsEVddrQ", usage: tokenUsage({ input_other: 707, output: 89 }), finishReason: "stop" },
  { file: "stream-thinking-long.sse", id: "msg_01ALwQ87pTS7hH1PjSdC9wJD", usage: tokenUsage({ input_other: 43, output: 282 }), finishReason: "stop" },
  { file: "stream-redacted-thinking.sse", id: "msg_018XZkwvj9asBiffg3fXt88s", usage: tokenUsage({ input_other: 92, output: 189 }), finishReason: "stop" },
];

describe.each(streamPaths)("recorded streams, %s", (_path, pathOptions) => {
  it.each(streamCases.map((c) => [c.file, c] as const))("%s", async (_file, c) => {
    server.enqueue({ fixture: anthropicFixture(c.file) });
    const parts: StreamedMessagePart[] = [];
    const provider = anthropicProvider(server, pathOptions(server));
    const result = await generate(provider, "", [], [userMessage("hi")], { onMessagePart: (p) => void parts.push(p) });
    const expected = expectedFromRecording(anthropicFixture(c.file));
    expect(result.message.role).toBe("assistant");
    expect(result.message.content).toEqual(expected.content);
    expect(result.message.tool_calls ?? []).toEqual(expected.toolCalls);
    expect(result.id).toBe(c.id);
    expect(result.usage).toEqual(c.usage);
    expect(result.finishReason).toBe(c.finishReason);
    // Parallel calls are routed by the content block index.
    for (const part of parts) if (part.type === "function" || part.type === "tool_call_part") expect(part.index).toBeTypeOf("number");
  });
});

describe("recorded streams, parts", () => {

  it("streams thinking, then the signature as a signature-only think part, then the tool call", async () => {
    server.enqueue({ fixture: anthropicFixture("stream-thinking-then-tool-use.sse") });
    const parts: StreamedMessagePart[] = [];
    for await (const part of await anthropicProvider(server).generate("", [], [userMessage("hi")])) parts.push(part);
    const [signature] = recordedBlocks(anthropicFixture("stream-thinking-then-tool-use.sse")).map((b) => b.signature);
    expect(parts.map((p) => p.type)).toEqual(["think", "think", "think", "think", "think", "function", "tool_call_part"]);
    expect(parts[0]).toEqual({ type: "think", think: "", encrypted: null });
    expect(parts[4]).toEqual({ type: "think", think: "", encrypted: signature });
    expect(parts[5]).toEqual({ type: "function", id: "toolu_01825dXWLSoJwCst1qTsiWdb", function: { name: "fixed_version", arguments: null }, index: 1 });
    // A tool with no arguments (a single empty input_json_delta) ends with "{}".
    expect(parts[6]).toEqual({ type: "tool_call_part", arguments_part: "{}", index: 1 });
  });

  it("keeps the truncated arguments of a tool call cut by max_tokens", async () => {
    const file = anthropicFixture("stream-max-tokens-mid-tool-input.sse");
    server.enqueue({ fixture: file });
    const result = await generate(anthropicProvider(server), "", [], [userMessage("hi")]);
    const truncated = recordedBlocks(file)[1]!.text;
    expect(truncated.startsWith('{"filename": "taxes.txt"')).toBe(true);
    expect(() => JSON.parse(truncated)).toThrow();
    expect(result.message.tool_calls).toEqual([toolCall("toolu_01EKqbqmZrGRXy18eN7m9kvY", "make_file", truncated)]);
    expect(result.message.content).toEqual(expectedFromRecording(file).content);
    expect(result.finishReason).toBe("max_tokens");
    expect(result.id).toBe("msg_01UdjYBBipA9omjYhicnevgq");
    expect(result.usage).toEqual(tokenUsage({ input_other: 450, output: 124 }));
  });

  it("takes cumulative message_delta usage over message_start, counter by counter", async () => {
    server.enqueue({
      chunks: [
        { type: "message_start", message: { id: "msg_c", usage: { input_tokens: 5, output_tokens: 1, cache_read_input_tokens: 100, cache_creation_input_tokens: 40 } } },
        { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } },
        { type: "content_block_stop", index: 0 },
        { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 7 } },
        { type: "message_delta", delta: {}, usage: { output_tokens: 9, cache_read_input_tokens: 120, input_tokens: null } },
        { type: "message_stop" },
      ],
    });
    const result = await generate(anthropicProvider(server), "", [], [userMessage("hi")]);
    expect(result.usage).toEqual({ input_other: 5, output: 9, input_cache_read: 120, input_cache_creation: 40 });
  });
});

interface NonStreamCase {
  file: string;
  id: string;
  usage: TokenUsage;
  finishReason: FinishReason;
}

const nonStreamCases: NonStreamCase[] = [
  { file: "nonstream-text.json", id: "msg_01VdEjxAP5ahtHKrrRdNBteQ", usage: tokenUsage({ input_other: 12, output: 29 }), finishReason: "stop" },
  { file: "nonstream-parallel-tool-use.json", id: "msg_011S3wxtqL5CVescWqS3zeg2", usage: tokenUsage({ input_other: 423, output: 202 }), finishReason: "tool_calls" },
  { file: "nonstream-thinking-text-tool-use.json", id: "msg_01WvueFjZVbHcj4H4zUzeGv2", usage: tokenUsage({ input_other: 398, output: 155 }), finishReason: "tool_calls" },
  {
    file: "nonstream-prompt-cache-read-and-write.json",
    id: "msg_01KPaKTJSqAKoZri7Ujrny58",
    usage: { input_other: 3, output: 33, input_cache_read: 1111, input_cache_creation: 418 },
    finishReason: "stop",
  },
];

interface RecordedMessage {
  content: Array<{ type: string; text?: string; thinking?: string; signature?: string; id?: string; name?: string; input?: unknown }>;
}

describe("recorded complete (non-stream) messages", () => {
  it.each(nonStreamCases.map((c) => [c.file, c] as const))("%s", async (_file, c) => {
    server.enqueue({ fixture: anthropicFixture(c.file) });
    const result = await generate(anthropicProvider(server, { stream: false }), "", [], [userMessage("hi")]);
    expect(server.requests[0]!.body!.stream).toBe(false);
    const recorded = JSON.parse(readFileSync(anthropicFixture(c.file), "utf8")) as RecordedMessage;
    const content: ContentPart[] = [];
    const calls: ToolCall[] = [];
    for (const block of recorded.content) {
      if (block.type === "text") content.push({ type: "text", text: block.text! });
      if (block.type === "thinking") content.push({ type: "think", think: block.thinking!, encrypted: block.signature! });
      if (block.type === "tool_use") calls.push(toolCall(block.id!, block.name!, block.input as Record<string, unknown>));
    }
    expect(result.message.content).toEqual(content);
    expect(result.message.tool_calls ?? []).toEqual(calls);
    expect(result.id).toBe(c.id);
    expect(result.usage).toEqual(c.usage);
    expect(result.finishReason).toBe(c.finishReason);
  });

  it("gives a tool with empty input the arguments {}", async () => {
    server.enqueue({ fixture: anthropicFixture("nonstream-thinking-text-tool-use.json") });
    const result = await generate(anthropicProvider(server, { stream: false }), "", [], [userMessage("hi")]);
    expect(result.message.tool_calls![0]!.function.arguments).toBe("{}");
  });
});

it("covers every response fixture of provider-streams/anthropic-messages (error bodies: anthropic-errors.test.ts, the nock recording: anthropic-multiturn.test.ts)", () => {
  const files = readdirSync(fixture("provider-streams/anthropic-messages")).filter(
    (f) => !f.startsWith("_") && !f.startsWith("error-") && !f.endsWith(".nock.json"),
  );
  expect([...covered].sort()).toEqual(files.sort());
});
