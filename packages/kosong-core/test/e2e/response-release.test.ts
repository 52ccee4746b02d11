/**
 * Every provider lets go of the HTTP response as soon as it stops reading
 * it: a consumer that breaks off, an abort before the response or while a
 * chunk is awaited, a malformed frame and an error event inside the stream
 * each close the connection, even when the server would keep it open.
 *
 * The server here writes some frames and then holds the response open; each
 * test waits for the server to see its connection close. A provider that
 * left the response unread would hang the test until its timeout.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  APIStatusError,
  ChatProviderError,
  isAbortError,
  KosongError,
  textPart,
  userMessage,
  type ChatProvider,
  type StreamedMessagePart,
} from "@kosong/core";
import { AnthropicProvider } from "@kosong/core/anthropic";
import { OpenAIChatProvider, OpenAIResponsesProvider } from "@kosong/core/openai";

interface WireFrames {
  /** Frames that carry the text part "a". */
  first: string;
  malformed: string;
  error: string;
}

const frames: Record<string, WireFrames> = {
  "openai-chat": {
    first: 'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n',
    malformed: "data: {not json\n\n",
    error: 'data: {"error":{"message":"The server had an error","type":"server_error","code":null}}\n\n',
  },
  "openai-responses": {
    first:
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"a","sequence_number":1}\n\n',
    malformed: "event: response.output_text.delta\ndata: {not json\n\n",
    error: 'event: error\ndata: {"type":"error","code":"server_error","message":"The server had an error","sequence_number":2}\n\n',
  },
  anthropic: {
    first:
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}\n\n' +
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}\n\n',
    malformed: "event: content_block_delta\ndata: {not json\n\n",
    error: 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
  },
};

/** What the next request gets: nothing at all (no status line), or these bytes of a 200 stream. */
let reply: string | null = "";
/** Resolves when the connection of the last request has closed. */
let closed: Promise<void> = Promise.resolve();
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    closed = new Promise((resolve) => res.once("close", () => resolve()));
    if (reply === null) return;
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
    res.write(reply); // ...and never end the response.
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const providers: Record<string, () => ChatProvider> = {
  "openai-chat": () => new OpenAIChatProvider({ model: "gpt-4.1", apiKey: "k", baseURL: `${url}/v1` }),
  "openai-responses": () => new OpenAIResponsesProvider({ model: "gpt-4.1", apiKey: "k", baseURL: `${url}/v1` }),
  anthropic: () => new AnthropicProvider({ model: "claude-opus-4-8", apiKey: "k", baseURL: url }),
};

async function start(name: string, body: string | null, signal?: AbortSignal) {
  reply = body;
  const stream = await providers[name]!().generate("", [], [userMessage("hi")], signal ? { signal } : {});
  return stream[Symbol.asyncIterator]();
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("expected a failure"),
    (error: unknown) => error,
  );
}

const first: IteratorResult<StreamedMessagePart> = { done: false, value: textPart("a") };

describe.each(Object.keys(frames))("%s", (name) => {
  const wire = frames[name]!;

  it("a consumer that stops after the first part closes the connection", async () => {
    const parts = await start(name, wire.first);
    expect(await parts.next()).toEqual(first);
    await parts.return?.();
    await closed;
  });

  it("an abort while the next chunk is awaited rejects with the AbortError and closes the connection", async () => {
    const controller = new AbortController();
    const parts = await start(name, wire.first, controller.signal);
    expect(await parts.next()).toEqual(first);
    const pending = parts.next();
    controller.abort();
    const error = await failure(pending);
    expect(isAbortError(error)).toBe(true);
    expect(KosongError.isInstance(error)).toBe(false);
    await closed;
  });

  it("an abort before the response has started rejects generate() and closes the connection", async () => {
    const controller = new AbortController();
    const pending = start(name, null, controller.signal);
    await new Promise<void>((resolve) => server.once("request", () => setImmediate(resolve)));
    controller.abort();
    expect(isAbortError(await failure(pending))).toBe(true);
    await closed;
  });

  it("a malformed frame is a ChatProviderError and closes the connection", async () => {
    const parts = await start(name, wire.first + wire.malformed);
    expect(await parts.next()).toEqual(first);
    const error = await failure(parts.next());
    expect(ChatProviderError.isInstance(error)).toBe(true);
    await closed;
  });

  it("an error event inside the stream is an APIStatusError and closes the connection", async () => {
    const parts = await start(name, wire.first + wire.error);
    expect(await parts.next()).toEqual(first);
    const error = await failure(parts.next());
    expect(APIStatusError.isInstance(error)).toBe(true);
    await closed;
  });
});
