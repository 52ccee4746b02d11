/**
 * kosong's time limits of an LLM call, through the official SDK clients
 * against real local HTTP servers: one that accepts a request and never
 * answers, one that sends its headers and then trickles a byte at a time
 * without ever completing an event. Each ends the call with a retryable
 * APITimeoutError and closes the connection; an abort stays an abort.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { APITimeoutError, generate, isAbortError, isRetryable, userMessage, type ChatProvider, type StreamTimeouts } from "@kosong/core";
import { AnthropicProvider } from "@kosong/core/anthropic";
import { OpenAIChatProvider, OpenAIResponsesProvider } from "@kosong/core/openai";
import { ScriptedChatProvider } from "@kosong/core/testing";

interface StallServer {
  url: string;
  /** Requests whose connection the client has closed. */
  closed: number;
  requests: number;
  close(): Promise<void>;
}

const servers: StallServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server that never answers (`"silent"`), or sends SSE headers and then one space every `trickleMs` (`"trickle"`). */
async function stallServer(kind: "silent" | "trickle", trickleMs = 20): Promise<StallServer> {
  const timers = new Set<ReturnType<typeof setInterval>>();
  const state = { closed: 0, requests: 0 };
  const server = http.createServer((req, res) => {
    state.requests += 1;
    req.resume();
    res.on("close", () => (state.closed += 1));
    if (kind === "silent") return;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(" ");
    const timer = setInterval(() => res.write(" "), trickleMs);
    timers.add(timer);
    res.on("close", () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const made: StallServer = {
    url,
    get closed() {
      return state.closed;
    },
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(made);
  return made;
}

const families: Array<{ name: string; make: (url: string, timeouts: StreamTimeouts) => ChatProvider }> = [
  { name: "OpenAIChatProvider", make: (url, timeouts) => new OpenAIChatProvider({ model: "gpt-4.1", apiKey: "k", baseURL: `${url}/v1`, timeouts }) },
  { name: "OpenAIResponsesProvider", make: (url, timeouts) => new OpenAIResponsesProvider({ model: "gpt-5", apiKey: "k", baseURL: `${url}/v1`, timeouts }) },
  { name: "AnthropicProvider", make: (url, timeouts) => new AnthropicProvider({ model: "claude-sonnet-4-6", apiKey: "k", baseURL: url, timeouts }) },
];

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: unknown) => error,
  );
}

async function waitUntil(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe.each(families)("$name time limits", ({ make }) => {
  it("a server that accepts and never answers: a retryable APITimeoutError after firstByteMs, the connection closed", async () => {
    const server = await stallServer("silent");
    const provider = make(server.url, { firstByteMs: 150, idleMs: null });
    const error = await failure(generate(provider, "", [], [userMessage("hi")]));
    expect(APITimeoutError.isInstance(error), String(error)).toBe(true);
    expect(isRetryable(error)).toBe(true);
    expect((error as Error).message).toMatch(/no response within 0\.15 s/);
    await waitUntil(() => server.closed === server.requests);
  });

  it("headers, then a byte at a time that never completes an event: a retryable APITimeoutError after idleMs, the connection closed", async () => {
    const server = await stallServer("trickle", 20);
    const provider = make(server.url, { firstByteMs: 5000, idleMs: 200 });
    const error = await failure(generate(provider, "", [], [userMessage("hi")]));
    expect(APITimeoutError.isInstance(error), String(error)).toBe(true);
    expect(isRetryable(error)).toBe(true);
    expect((error as Error).message).toMatch(/stream stalled \(no data for 0\.2 s\)/);
    await waitUntil(() => server.closed === server.requests);
  });

  it("an abort while waiting stays an abort, not a timeout", async () => {
    const server = await stallServer("trickle", 20);
    const provider = make(server.url, { firstByteMs: 5000, idleMs: 5000 });
    const controller = new AbortController();
    const pending = failure(generate(provider, "", [], [userMessage("hi")], { signal: controller.signal }));
    await waitUntil(() => server.requests === 1);
    controller.abort();
    const error = await pending;
    expect(isAbortError(error), String(error)).toBe(true);
    await waitUntil(() => server.closed === server.requests);
  });

  it("the limits are checked when the provider is built", () => {
    expect(() => make("http://127.0.0.1:1", { idleMs: 0 })).toThrow(RangeError);
    expect(() => make("http://127.0.0.1:1", { firstByteMs: -5 })).toThrow(RangeError);
  });
});

describe("generate's own time limits, for any provider", () => {
  it("a provider whose stream stalls is cut after idleMs with a retryable APITimeoutError", async () => {
    // The scripted provider streams its parts with a delay far past the limit.
    const provider = new ScriptedChatProvider(["text: one two three"], { chunkSize: 2, delayMs: 10_000 });
    const error = await failure(generate(provider, "", [], [userMessage("hi")], { timeouts: { idleMs: 100 } }));
    expect(APITimeoutError.isInstance(error), String(error)).toBe(true);
    expect(isRetryable(error)).toBe(true);
  });

  it("no limit unless asked: a slow stream completes", async () => {
    const provider = new ScriptedChatProvider(["text: slow"], { chunkSize: 2, delayMs: 30 });
    const result = await generate(provider, "", [], [userMessage("hi")]);
    expect(result.message.content).toEqual([{ type: "text", text: "slow" }]);
  });
});
