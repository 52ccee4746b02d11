/**
 * OpenAIChatProvider reads the SSE body of a streamed completion itself
 * (the request still goes through the SDK). These tests pin the
 * event-stream rules it must follow with real servers: line endings, comments,
 * multi-line data, frames split across network reads, a last event without
 * its blank line, `event: error`, and servers that answer a stream request
 * with a complete JSON body.
 */
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { APIStatusError, ChatProviderError, textPart, tokenUsage, userMessage, type StreamedMessage } from "@kosong/core";
import { OpenAIChatProvider } from "@kosong/core/openai";
import { type FakeResponse } from "@kosong/core/testing";
import { collect } from "../helpers/collect.js";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const server = useFakeProviderServer({ resetBeforeEach: true });

const chunk = (content: string | null, finish: string | null = null) =>
  JSON.stringify({ id: "chatcmpl-sse", object: "chat.completion.chunk", choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }] });
const usageChunk = JSON.stringify({ id: "chatcmpl-sse", choices: [], usage: { prompt_tokens: 5, completion_tokens: 2 } });

async function stream(response: FakeResponse): Promise<StreamedMessage> {
  server.enqueue(response);
  return new OpenAIChatProvider({ model: "m", apiKey: "k", baseURL: `${server.url}/v1` }).generate("", [], [userMessage("hi")]);
}

async function text(response: FakeResponse): Promise<string> {
  const { message } = await collect(await stream(response));
  return message.content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

describe("event-stream decoding", () => {
  it("accepts CRLF and CR line endings", async () => {
    expect(await text({ sse: [`data: ${chunk("a")}\r\n\r\n`, `data: ${chunk("b")}\r\rdata: ${chunk(null, "stop")}\r\n\r\n`, "data: [DONE]\r\n\r\n"] })).toBe("ab");
  });

  it("skips comments and unknown fields, joins multi-line data with a newline", async () => {
    const [head, tail] = [chunk("x").slice(0, 20), chunk("x").slice(20)];
    expect(
      await text({
        sse: [": keep-alive\n\n", `id: 7\nretry: 1000\ndata: ${head}\ndata: ${tail}\n\n`, `data: ${chunk(null, "stop")}\n\n`, "data: [DONE]\n\n"],
      }),
    ).toBe("x"); // the JSON text spans two data lines; the newline between them is whitespace to JSON
  });

  it("reassembles frames split anywhere across network reads, and a CRLF split between reads", async () => {
    const body = `data: ${chunk("héllo ")}\r\n\r\ndata: ${chunk("wörld")}\r\n\r\ndata: ${chunk(null, "stop")}\r\n\r\ndata: [DONE]\r\n\r\n`;
    const pieces: string[] = [];
    for (const segment of body.split(/(?<=\r)/)) for (let i = 0; i < segment.length; i += 7) pieces.push(segment.slice(i, i + 7));
    expect(pieces.some((p) => p.endsWith("\r"))).toBe(true);
    expect(await text({ sse: pieces, chunkDelayMs: 1 })).toBe("héllo wörld");
  });

  it("a CRLF split between two reads inside a multi-line event ends one line, not the event", async () => {
    const whole = chunk("joined");
    const [head, tail] = [whole.slice(0, 20), whole.slice(20)]; // split after `"chatcmpl-sse"`: JSON allows a newline there
    expect(
      await text({
        sse: [`data: ${head}\r`, `\ndata: ${tail}\r\n\r\n`, `data: ${chunk(null, "stop")}\r\n\r\n`, "data: [DONE]\r\n\r\n"],
        chunkDelayMs: 5,
      }),
    ).toBe("joined");
  });

  it("dispatches a last event that lacks its blank line at the end of the body", async () => {
    const s = await stream({ sse: [`data: ${chunk("a")}\n\n`, `data: ${chunk(null, "stop")}\n\n`, `data: ${usageChunk}`] });
    const { message } = await collect(s);
    expect(message.content).toEqual([textPart("a")]);
    expect(s.usage).toEqual(tokenUsage({ input_other: 5, output: 2 }));
  });

  it("stops at data: [DONE]", async () => {
    expect(await text({ sse: [`data: ${chunk("a")}\n\n`, `data: ${chunk(null, "stop")}\n\n`, "data: [DONE]\n\n", `data: ${chunk("ignored")}\n\n`] })).toBe("a");
  });

  it("an `event: error` frame is a typed error after the chunks before it", async () => {
    const s = await stream({
      sse: [`data: ${chunk("a")}\n\n`, 'event: error\ndata: {"message":"Overloaded","type":"server_is_overloaded"}\n\n'],
    });
    const parts: unknown[] = [];
    const error = await (async () => {
      for await (const part of s) parts.push(part);
    })().catch((e: unknown) => e);
    expect(parts).toEqual([textPart("a")]);
    expect(APIStatusError.isInstance(error)).toBe(true);
    expect((error as APIStatusError).statusCode).toBe(503);
  });

  it("malformed JSON in a frame is a clear ChatProviderError", async () => {
    const s = await stream({ sse: [`data: ${chunk("a")}\n\n`, "data: {not json\n\n"] });
    const error = await collect(s).catch((e: unknown) => e);
    expect(ChatProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/Malformed server-sent event.*\{not json/);
  });

  it("a chunk of the wrong shape is a clear ChatProviderError after the parts before it, not a raw TypeError", async () => {
    const s = await stream({ sse: [`data: ${chunk("a")}\n\n`, 'data: {"choices":[{"index":0,"delta":{"tool_calls":{"index":0}}}]}\n\n'] });
    const parts: unknown[] = [];
    const error = await (async () => {
      for await (const part of s) parts.push(part);
    })().catch((e: unknown) => e);
    expect(parts).toEqual([textPart("a")]);
    expect(ChatProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^Unexpected chunk in the response stream: TypeError/);
  });

  it("a complete JSON body answering a stream request (servers that ignore `stream`) is read as a completion", async () => {
    const s = await stream({
      status: 200,
      body: {
        id: "chatcmpl-json",
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: "whole" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 3, completion_tokens: 1 },
      },
    });
    const { message } = await collect(s);
    expect(message.content).toEqual([textPart("whole")]);
    expect(s.id).toBe("chatcmpl-json");
    expect(s.usage).toEqual(tokenUsage({ input_other: 3, output: 1 }));
  });
});

describe("clients that return their own stream", () => {
  it("iterates what the client's create() resolves to", async () => {
    const chunks = [JSON.parse(chunk("from ")) as object, JSON.parse(chunk("client")) as object, JSON.parse(chunk(null, "stop")) as object];
    const client = {
      chat: {
        completions: {
          create: async () =>
            (async function* () {
              yield* chunks;
            })(),
        },
      },
    } as unknown as OpenAI;
    const s = await new OpenAIChatProvider({ model: "m", client }).generate("", [], [userMessage("hi")]);
    const { message } = await collect(s);
    expect(message.content).toEqual([textPart("from client")]);
    expect(s.finishReason).toBe("stop");
  });
});
