/**
 * The Chat Completions event-stream decoder must give the same result
 * however the network splits the body: at every single byte (inside a CRLF,
 * inside a multi-byte UTF-8 character, inside the BOM, inside `[DONE]`) and
 * at many random places at once.
 *
 * The bodies mix what real servers send: CRLF, CR and LF line endings, a
 * BOM, comments, `id:`/`retry:` fields, a `data:` without its space, a JSON
 * object spread over several `data:` lines, multi-byte text, a tool call, an
 * `event: error` frame with non-ASCII text, a last frame without its blank
 * line, and frames after `data: [DONE]`.
 *
 * The official SDK sends the request; its `fetch` option hands back a body
 * whose reads are exactly the pieces under test (a TCP socket cannot be
 * made to deliver chosen byte boundaries).
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import {
  APIStatusError,
  textPart,
  tokenUsage,
  userMessage,
  type FinishReason,
  type StreamedMessagePart,
  type TokenUsage,
} from "@kosong/core";
import { OpenAIChatProvider } from "@kosong/core/openai";

const chunk = (delta: object, finish: string | null = null) =>
  JSON.stringify({ id: "chatcmpl-split", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] });
const usage = JSON.stringify({ id: "chatcmpl-split", choices: [], usage: { prompt_tokens: 9, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 4 } } });

/** A chunk whose JSON text spans three `data:` lines (the decoder joins them with "\n", which JSON reads as whitespace). */
const multiLine = ["data: {\"id\":\"chatcmpl-split\",", 'data:"choices":[{"index":0,', 'data: "delta":{"content":"multi"},"finish_reason":null}]}'];

const bodies = {
  "CRLF, BOM, comments, multi-line data, tool call, frames after [DONE]": [
    // A BOM starts the stream (and is not part of the first field name).
    `\uFEFFdata: ${chunk({ role: "assistant", content: "héllo 中文 " })}\r\n\r\n`,
    ": keep-alive\r\n\r\n",
    `id: 1\r\nretry: 3000\r\ndata:${chunk({ content: "🎉 emoji" })}\r\n\r\n`,
    `${multiLine.join("\r\n")}\r\n\r\n`,
    `data: ${chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "lookup", arguments: "" } }] })}\r\n\r\n`,
    `data: ${chunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":"ü€"}' } }] })}\r\n\r\n`,
    `data: ${chunk({}, "tool_calls")}\r\n\r\n`,
    `: usage follows\r\ndata: ${usage}\r\n\r\n`,
    "data: [DONE]\r\n\r\n",
    `data: ${chunk({ content: "after done" })}\r\n\r\n`,
  ].join(""),
  "CR and LF endings, last frame without its blank line": [
    `data: ${chunk({ role: "assistant", content: "" })}\r\r`,
    `data: ${chunk({ content: "héllo 中文 " })}\n\n`,
    ": ping\r",
    `\rdata: ${chunk({ content: "🎉 emoji" })}\r\r`,
    `${multiLine.join("\r")}\n\n`,
    `data: ${chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "lookup", arguments: "" } }] })}\n\r\n`,
    `data: ${chunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":"ü€"}' } }] })}\r\n\n`,
    `data: ${chunk({}, "tool_calls")}\n\n`,
    `data: ${usage}`,
  ].join(""),
};

const expectedParts: StreamedMessagePart[] = [
  textPart("héllo 中文 "),
  textPart("🎉 emoji"),
  textPart("multi"),
  { type: "function", id: "call_1", function: { name: "lookup", arguments: "" }, index: 0 },
  { type: "tool_call_part", arguments_part: '{"q":"ü€"}', index: 0 },
];

const errorBody = [
  `data: ${chunk({ content: "part" })}\n\n`,
  "event: error\r\n",
  'data: {"message":"Überlastet 😵, bitte später","type":"server_error","code":null}\r\n\r\n',
].join("");

/** Plain text over two `data:` lines: the message keeps the line break between them. */
const plainTextErrorBody = [`data: ${chunk({ content: "part" })}\n\n`, "event: error\ndata: upstream gateway:\r\ndata: Zeitüberschreitung 😵\n\n"].join("");

interface Outcome {
  parts: StreamedMessagePart[];
  usage: TokenUsage | null;
  finishReason: FinishReason | null | undefined;
  error: { name: string; message: string; statusCode: number } | null;
}

/** Runs one generation whose response body arrives as exactly these reads. */
async function run(pieces: Uint8Array[]): Promise<Outcome> {
  const client = new OpenAI({
    apiKey: "k",
    baseURL: "http://127.0.0.1:9/v1",
    maxRetries: 0,
    fetch: async () => {
      let next = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (next < pieces.length) controller.enqueue(pieces[next++]!);
          else controller.close();
        },
      });
      return new Response(body, { status: 200, headers: { "content-type": "text/event-stream; charset=utf-8" } });
    },
  });
  const stream = await new OpenAIChatProvider({ model: "gpt-4.1", client }).generate("", [], [userMessage("hi")]);
  const parts: StreamedMessagePart[] = [];
  let error: Outcome["error"] = null;
  try {
    for await (const part of stream) parts.push(part);
  } catch (e) {
    const status = e as APIStatusError;
    error = { name: status.name, message: status.message, statusCode: APIStatusError.isInstance(e) ? status.statusCode : -1 };
  }
  return { parts, usage: stream.usage, finishReason: stream.finishReason, error };
}

/** Splits `bytes` before each of the given offsets. */
function splitAt(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const offset of offsets) {
    pieces.push(bytes.subarray(start, offset));
    start = offset;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

/** A small seeded generator (mulberry32), so a failing split can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Checks the outcome of every two-piece split and of `trials` random many-piece splits against `expected`. */
async function expectSameEverywhere(text: string, expected: Outcome, trials = 150): Promise<void> {
  const bytes = new TextEncoder().encode(text);
  for (let offset = 1; offset < bytes.length; offset++) {
    const outcome = await run(splitAt(bytes, [offset]));
    if (JSON.stringify(outcome) !== JSON.stringify(expected)) expect(outcome, `split at byte ${offset}`).toEqual(expected);
  }
  const next = random(bytes.length);
  for (let trial = 0; trial < trials; trial++) {
    const offsets: number[] = [];
    for (let at = 1 + Math.floor(next() * 12); at < bytes.length; at += 1 + Math.floor(next() * 12)) offsets.push(at);
    const outcome = await run(splitAt(bytes, offsets));
    if (JSON.stringify(outcome) !== JSON.stringify(expected)) expect(outcome, `split at bytes ${offsets.join(",")}`).toEqual(expected);
  }
  // Single-byte reads: every boundary at once.
  expect(await run(splitAt(bytes, Array.from({ length: bytes.length - 1 }, (_, i) => i + 1)))).toEqual(expected);
}

describe("Chat Completions SSE decoding under arbitrary network splits", () => {
  it.each(Object.entries(bodies))("%s", async (_, text) => {
    const expected: Outcome = {
      parts: expectedParts,
      usage: tokenUsage({ input_other: 5, input_cache_read: 4, output: 7 }),
      finishReason: "tool_calls",
      error: null,
    };
    expect(await run([new TextEncoder().encode(text)])).toEqual(expected);
    await expectSameEverywhere(text, expected);
  });

  it("an `event: error` frame with non-ASCII JSON", async () => {
    const expected: Outcome = {
      parts: [textPart("part")],
      usage: null,
      finishReason: null,
      error: { name: "APIStatusError", message: "500 server_error: Überlastet 😵, bitte später", statusCode: 500 },
    };
    expect(await run([new TextEncoder().encode(errorBody)])).toEqual(expected);
    await expectSameEverywhere(errorBody, expected, 50);
  });

  it("an `event: error` frame whose data is plain text (two lines) is still a typed status error", async () => {
    const expected: Outcome = {
      parts: [textPart("part")],
      usage: null,
      finishReason: null,
      error: { name: "APIStatusError", message: "500 error: upstream gateway:\nZeitüberschreitung 😵", statusCode: 500 },
    };
    expect(await run([new TextEncoder().encode(plainTextErrorBody)])).toEqual(expected);
    await expectSameEverywhere(plainTextErrorBody, expected, 50);
  });

  it("a payload whose `error` is a bare message string is a typed status error", async () => {
    const body = `data: ${chunk({ content: "part" })}\n\ndata: {"error":"model overloaded, try again"}\n\n`;
    expect(await run([new TextEncoder().encode(body)])).toEqual({
      parts: [textPart("part")],
      usage: null,
      finishReason: null,
      error: { name: "APIStatusError", message: "500 error: model overloaded, try again", statusCode: 500 },
    });
  });
});
