/**
 * A fake provider server: a real HTTP server on 127.0.0.1 that speaks the
 * OpenAI Chat Completions, OpenAI Responses and Anthropic Messages wire
 * formats, so the official SDKs (and the providers built on them) can be
 * tested end to end without a network.
 *
 * Responses are queued with {@link FakeProviderServer.enqueue} and served in
 * order, one per request, whatever the path; the request path only selects
 * the wire format a scripted message or a chunk list is rendered in
 * (`.../chat/completions`, `.../responses`, `.../messages`). Every request is
 * recorded.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { FinishReason } from "../chat-provider.js";
import type { JsonValue, Message } from "../message.js";
import type { TokenUsage } from "../token-usage.js";
import { anthropicStreamError, renderAnthropicJson, renderAnthropicStream } from "./wire/anthropic-wire.js";
import { type LoadedFixture, loadFixture } from "./wire/fixture-files.js";
import { openAIChatStreamError, renderOpenAIChatJson, renderOpenAIChatStream } from "./wire/openai-chat-wire.js";
import {
  numberEvents,
  openAIResponsesStreamError,
  renderOpenAIResponsesJson,
  renderOpenAIResponsesStream,
} from "./wire/openai-responses-wire.js";
import type { RenderedStream, ScriptedReply } from "./wire/scripted-reply.js";
import {
  errorBody,
  type FakeStreamError,
  type FakeWireFormat,
  type JsonObject,
  sseFrame,
  sseTerminator,
  wireFormatOfPath,
} from "./wire/wire-format.js";

export type { FakeStreamError, FakeWireFormat } from "./wire/wire-format.js";

/** Options every queued response accepts. */
export interface FakeResponseBase {
  /**
   * Extra response headers, e.g. `{ "retry-after-ms": "1", "x-request-id": "req_1" }`; they win over
   * the defaults (`content-type: application/json` or `text/event-stream`), not over `content-length`.
   */
  headers?: Record<string, string>;
  /** Wait this long before sending the status line (to provoke client timeouts). */
  delayMs?: number;
}

/** Options of streamed responses. */
export interface FakeStreamControls {
  /** Destroy the socket after this many SSE frames (a connection cut mid-stream). */
  cutAfter?: number;
  /** Wait this long between SSE frames (slow chunks). */
  chunkDelayMs?: number;
  /**
   * Send this many SSE frames, then hold the stream open: the rest follows
   * once `release` resolves, or never when it is not given (the stream ends
   * only when the client leaves). A test waits for a state instead of racing
   * a timed stream, e.g. `{ message, holdAfter: 2 }` shows the first text part
   * of an OpenAI Chat stream (after the role frame) and stalls until aborted.
   */
  holdAfter?: number;
  /** With `holdAfter`: resolving it sends the rest of the stream. */
  release?: PromiseLike<unknown>;
}

/** The stream controls of a queued response. */
const streamControls = (item: FakeStreamControls): FakeStreamControls => ({
  cutAfter: item.cutAfter,
  chunkDelayMs: item.chunkDelayMs,
  holdAfter: item.holdAfter,
  release: item.release,
});

/**
 * A recorded fixture file, served by extension: `.sse` as-is, `.chunks.jsonl`
 * framed in the request's wire format, `.json` as a JSON body with the status
 * from `status`, the file name (`error-NNN-...`) or `_sources.json`, and
 * `.nock.json` as one queued response per record. Relative paths resolve
 * against the server's `fixturesDir`.
 */
export interface FakeFixtureResponse extends FakeResponseBase, FakeStreamControls {
  fixture: string;
  status?: number;
  /** Replay the response headers recorded in the folder's `_sources.json` / the nock records (default true). */
  recordedHeaders?: boolean;
}

/** A plain HTTP response: any status with a JSON (or string) body, e.g. an error with retry headers. */
export interface FakeStatusResponse extends FakeResponseBase {
  status: number;
  body?: JsonValue;
}

/**
 * A scripted kosong message rendered in the wire format of the request, as a
 * stream when the request body has `stream: true`, else as a JSON body. Each
 * content part becomes one delta; think parts follow each API's shape
 * (OpenAI Chat: `reasoningKey` deltas; Anthropic: thinking blocks with
 * `signature_delta`, a signature-only part as `redacted_thinking`; Responses:
 * reasoning items with `encrypted_content`).
 */
export interface FakeMessageResponse extends FakeResponseBase, FakeStreamControls {
  message: Message;
  usage?: TokenUsage | null;
  /** The response / message id (default: generated per format and request). */
  id?: string;
  /** The model reported back (default: the request's `model`). */
  model?: string;
  /** Default: `tool_calls` when the message calls tools, else `stop`. */
  finishReason?: FinishReason;
  /** The API's own finish/stop reason string, e.g. `length`, `pause_turn`. */
  rawFinishReason?: string;
  /** OpenAI Chat: the key carrying think parts (default `reasoning_content`). */
  reasoningKey?: string;
  /** Split tool-call arguments into fragments of at most this many characters. */
  argumentsChunkSize?: number;
  /** End the stream with this in-stream error instead of the normal end (HTTP status stays 200). */
  error?: FakeStreamError;
  /** With `error`: how many content events precede it (default: all of them). */
  errorAfter?: number;
}

/** Raw SSE frames sent as given (each should end with a blank line). */
export interface FakeSseResponse extends FakeResponseBase, FakeStreamControls {
  sse: string[];
  status?: number;
}

/** Stream events (JSON objects) framed in the request's wire format (`data:` / `event:` lines, `[DONE]` for OpenAI Chat). */
export interface FakeChunksResponse extends FakeResponseBase, FakeStreamControls {
  chunks: JsonValue[];
  status?: number;
}

/** One queued response. */
export type FakeResponse = FakeFixtureResponse | FakeStatusResponse | FakeMessageResponse | FakeSseResponse | FakeChunksResponse;

/** A request the server received. */
export interface FakeProviderRequest {
  method: string;
  /** The path without the query, e.g. `/v1/messages`. */
  path: string;
  /** The path with the query, e.g. `/v1/messages?beta=true`. */
  url: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The parsed JSON body (null when it is not a JSON object). */
  body: { [key: string]: JsonValue } | null;
  rawBody: string;
}

/** Options of {@link startFakeProviderServer}. */
export interface FakeProviderServerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a random free port). */
  port?: number;
  /** Base folder for relative fixture paths (default: the working directory). */
  fixturesDir?: string;
  /** Responses queued right away. */
  responses?: FakeResponse[];
}

/** A running fake provider server. */
export interface FakeProviderServer extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`; OpenAI SDK baseURL: `${url}/v1`; Anthropic SDK baseURL: `url`. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order. */
  readonly requests: FakeProviderRequest[];
  /** How many queued responses have not been served yet. */
  readonly pending: number;
  /** Queues responses; they are served in order, one per request. Fixture files are read (and checked) here. */
  enqueue(...responses: FakeResponse[]): void;
  /** Drops the queue and the recorded requests. */
  reset(): void;
  /** Stops the server, cutting open connections. */
  close(): Promise<void>;
}

type Queued =
  | { kind: "frames"; frames: string[]; status: number; headers: Record<string, string>; controls: FakeStreamControls; delayMs: number }
  | { kind: "chunks"; chunks: JsonValue[]; status: number; headers: Record<string, string>; controls: FakeStreamControls; delayMs: number }
  | { kind: "json"; body: string; status: number; headers: Record<string, string>; delayMs: number }
  | { kind: "message"; response: FakeMessageResponse };

interface Prepared {
  status: number;
  headers: Record<string, string>;
  delayMs: number;
  /** A JSON body, or SSE frames. */
  json?: string;
  frames?: string[];
  controls?: FakeStreamControls;
}

const sseContentType = "text/event-stream; charset=utf-8";
const jsonContentType = "application/json";

function fromFixture(loaded: LoadedFixture, item: FakeFixtureResponse): Queued {
  const headers = { ...loaded.headers, ...lowerKeys(item.headers) };
  const delayMs = item.delayMs ?? 0;
  const controls = streamControls(item);
  if (loaded.kind === "sse") return { kind: "frames", frames: loaded.frames, status: loaded.status, headers, controls, delayMs };
  if (loaded.kind === "chunks") return { kind: "chunks", chunks: loaded.chunks, status: loaded.status, headers, controls, delayMs };
  return { kind: "json", body: loaded.body, status: loaded.status, headers, delayMs };
}

function lowerKeys(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers ?? {})) out[key.toLowerCase()] = value;
  return out;
}

function isObject(value: unknown): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function frameAll(format: FakeWireFormat, events: readonly JsonValue[]): string[] {
  const frames = events.map((event) => sseFrame(format, event));
  const end = sseTerminator(format);
  if (end !== null) frames.push(end);
  return frames;
}

const renderers: Record<FakeWireFormat, { stream(reply: ScriptedReply): RenderedStream; json(reply: ScriptedReply): JsonObject; prefix: string }> = {
  "openai-chat": { stream: renderOpenAIChatStream, json: renderOpenAIChatJson, prefix: "chatcmpl-fake" },
  "openai-responses": { stream: renderOpenAIResponsesStream, json: renderOpenAIResponsesJson, prefix: "resp_fake" },
  anthropic: { stream: renderAnthropicStream, json: renderAnthropicJson, prefix: "msg_fake" },
};

function streamErrorEvents(format: FakeWireFormat, error: FakeStreamError, reply: ScriptedReply): JsonObject[] {
  if (format === "anthropic") return anthropicStreamError(error);
  if (format === "openai-chat") return openAIChatStreamError(error);
  return openAIResponsesStreamError(error, reply);
}

function renderMessage(item: FakeMessageResponse, format: FakeWireFormat, request: FakeProviderRequest, serial: number): Prepared {
  const renderer = renderers[format];
  const model = item.model ?? (typeof request.body?.model === "string" ? request.body.model : "fake-model");
  const reply: ScriptedReply = {
    message: item.message,
    usage: item.usage ?? null,
    id: item.id ?? `${renderer.prefix}_${serial}`,
    model,
    created: Math.floor(Date.now() / 1000),
    finishReason: item.finishReason ?? null,
    rawFinishReason: item.rawFinishReason ?? null,
    reasoningKey: item.reasoningKey ?? "reasoning_content",
    argumentsChunkSize: item.argumentsChunkSize ?? null,
  };
  const base = { status: 200, headers: lowerKeys(item.headers), delayMs: item.delayMs ?? 0 };
  if (request.body?.stream !== true) return { ...base, json: JSON.stringify(renderer.json(reply)) };
  const { events, tail } = renderer.stream(reply);
  let all: JsonObject[];
  if (item.error) {
    const errorEvents = streamErrorEvents(format, item.error, reply);
    const before = events.slice(0, item.errorAfter ?? events.length);
    if (format === "openai-responses") numberEvents(errorEvents, before.length);
    all = [...before, ...errorEvents];
  } else {
    all = [...events, ...tail];
  }
  return { ...base, frames: frameAll(format, all), controls: streamControls(item) };
}

function exhausted(request: FakeProviderRequest, served: number): Prepared {
  const format = wireFormatOfPath(request.url);
  const message =
    `fake provider server: no response queued for ${request.method} ${request.url} ` +
    `(request #${served + 1}; ${served} queued response(s) were already served). Call server.enqueue(...) first.`;
  return {
    status: 500,
    headers: { "x-should-retry": "false" },
    delayMs: 0,
    json: JSON.stringify(errorBody(format, { type: format === "anthropic" ? "api_error" : "server_error", message, code: "fake_queue_exhausted" })),
  };
}

function prepare(queued: Queued, request: FakeProviderRequest, serial: number): Prepared {
  switch (queued.kind) {
    case "json":
      return { status: queued.status, headers: queued.headers, delayMs: queued.delayMs, json: queued.body };
    case "frames":
      return { status: queued.status, headers: queued.headers, delayMs: queued.delayMs, frames: queued.frames, controls: queued.controls };
    case "chunks":
    case "message": {
      const format = wireFormatOfPath(request.url);
      if (format === null) {
        const message = `fake provider server: cannot tell the wire format of ${request.method} ${request.url} (expected a path ending in /chat/completions, /responses or /messages)`;
        return { status: 500, headers: {}, delayMs: 0, json: JSON.stringify(errorBody(null, { type: "server_error", message })) };
      }
      if (queued.kind === "message") return renderMessage(queued.response, format, request, serial);
      return { status: queued.status, headers: queued.headers, delayMs: queued.delayMs, frames: frameAll(format, queued.chunks), controls: queued.controls };
    }
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function recordRequest(req: IncomingMessage, rawBody: string): FakeProviderRequest {
  const url = req.url ?? "/";
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(", ") : value;
  }
  let body: FakeProviderRequest["body"] = null;
  try {
    const parsed: unknown = rawBody === "" ? null : JSON.parse(rawBody);
    if (isObject(parsed)) body = parsed;
  } catch {
    body = null;
  }
  return { method: req.method ?? "GET", path: url.split("?", 1)[0]!, url, headers, body, rawBody };
}

/** Resolves after `ms`, or at once when the response closes first (then resolves false). */
function wait(res: ServerResponse, ms: number): Promise<boolean> {
  if (ms <= 0) return Promise.resolve(!res.destroyed);
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off("close", onClose);
      resolve(!res.destroyed);
    }, ms);
    res.once("close", onClose);
  });
}

/** Resolves true once `release` resolves with the response still open, false when the client leaves first (or never, without `release`). */
function hold(res: ServerResponse, release: PromiseLike<unknown> | undefined): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = () => resolve(false);
    res.once("close", onClose);
    void release?.then(() => {
      res.off("close", onClose);
      resolve(!res.destroyed);
    });
  });
}

function write(res: ServerResponse, data: string): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    res.write(data, () => resolve());
  });
}

async function send(res: ServerResponse, prepared: Prepared): Promise<void> {
  if (!(await wait(res, prepared.delayMs))) return;
  if (prepared.json !== undefined) {
    const body = Buffer.from(prepared.json, "utf8");
    res.writeHead(prepared.status, { "content-type": jsonContentType, ...prepared.headers, "content-length": body.length });
    res.end(body);
    return;
  }
  const frames = prepared.frames ?? [];
  const { cutAfter, chunkDelayMs = 0, holdAfter, release } = prepared.controls ?? {};
  if (cutAfter === undefined && chunkDelayMs <= 0 && holdAfter === undefined) {
    const body = Buffer.from(frames.join(""), "utf8");
    res.writeHead(prepared.status, {
      "content-type": sseContentType,
      "cache-control": "no-cache",
      ...prepared.headers,
      "content-length": body.length,
    });
    res.end(body);
    return;
  }
  res.writeHead(prepared.status, { "content-type": sseContentType, "cache-control": "no-cache", ...prepared.headers });
  res.flushHeaders();
  const count = cutAfter === undefined ? frames.length : Math.min(cutAfter, frames.length);
  for (let i = 0; i < count; i++) {
    if (i === holdAfter && !(await hold(res, release))) return;
    if (i > 0 && !(await wait(res, chunkDelayMs))) return;
    await write(res, frames[i]!);
    if (res.destroyed) return;
  }
  if (cutAfter !== undefined) {
    res.socket?.destroy();
    res.destroy();
    return;
  }
  res.end();
}

/**
 * Starts a fake provider server on 127.0.0.1 and a random port.
 *
 * ```ts
 * const server = await startFakeProviderServer();
 * server.enqueue({ message: assistantMessage("hi"), usage: tokenUsage({ input_other: 3, output: 1 }) });
 * const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "x", maxRetries: 0 });
 * ```
 *
 * A request beyond the queue gets HTTP 500 with an error body (in the wire
 * format of its path) that says no response was queued.
 */
export async function startFakeProviderServer(options: FakeProviderServerOptions = {}): Promise<FakeProviderServer> {
  const queue: Queued[] = [];
  const requests: FakeProviderRequest[] = [];
  let served = 0;

  const server = createServer((req, res) => {
    void (async () => {
      const request = recordRequest(req, await readBody(req));
      requests.push(request);
      const queued = queue.shift();
      const serial = requests.length;
      let prepared: Prepared;
      try {
        prepared = queued === undefined ? exhausted(request, served) : prepare(queued, request, serial);
      } catch (error) {
        const message = `fake provider server: could not render the queued response: ${error instanceof Error ? error.message : String(error)}`;
        prepared = { status: 500, headers: {}, delayMs: 0, json: JSON.stringify(errorBody(wireFormatOfPath(request.url), { type: "server_error", message })) };
      }
      if (queued !== undefined) served++;
      await send(res, prepared);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(`fake provider server failed: ${String(error)}`);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;

  const enqueue = (...items: FakeResponse[]): void => {
    for (const item of items) {
      if ("fixture" in item) {
        const file = path.resolve(options.fixturesDir ?? process.cwd(), item.fixture);
        const loaded = loadFixture(file, { status: item.status, recordedHeaders: item.recordedHeaders ?? true });
        for (const one of loaded) queue.push(fromFixture(one, item));
      } else if ("message" in item) {
        queue.push({ kind: "message", response: item });
      } else if ("sse" in item) {
        const controls = streamControls(item);
        queue.push({ kind: "frames", frames: item.sse, status: item.status ?? 200, headers: lowerKeys(item.headers), controls, delayMs: item.delayMs ?? 0 });
      } else if ("chunks" in item) {
        const controls = streamControls(item);
        queue.push({ kind: "chunks", chunks: item.chunks, status: item.status ?? 200, headers: lowerKeys(item.headers), controls, delayMs: item.delayMs ?? 0 });
      } else {
        const body = item.body === undefined ? "" : typeof item.body === "string" ? item.body : JSON.stringify(item.body);
        queue.push({ kind: "json", body, status: item.status, headers: lowerKeys(item.headers), delayMs: item.delayMs ?? 0 });
      }
    }
  };
  enqueue(...(options.responses ?? []));

  const close = (): Promise<void> =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });

  return {
    url,
    port: address.port,
    requests,
    get pending() {
      return queue.length;
    },
    enqueue,
    reset() {
      queue.length = 0;
      requests.length = 0;
      served = 0;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
