/**
 * The first turn's warm-up (the interactive mode runs it while the user
 * types at the first prompt): each SDK provider the CLI builds runs one
 * turn (a soul on an in-memory context) with a twin of itself, through the
 * official SDK and Node's fetch, against a throwaway server on 127.0.0.1,
 * and parses the canned answer.
 * The provider's server gets nothing from it, the real request after it
 * works as before, the throwaway server is closed afterwards, and a prompt
 * that stops waiting stops it.
 */
import diagnostics from "node:diagnostics_channel";
import { once } from "node:events";
import { type ChatProvider, type Tool, userMessage } from "@kosong/core";
import { type FakeProviderServer, startFakeProviderServer } from "@kosong/core/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resolveSettings } from "../src/config/settings.js";
import { createProviders } from "../src/providers/create-provider.js";
import { DeferredProvider } from "../src/providers/deferred-provider.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();
let server: FakeProviderServer;
beforeAll(async () => {
  server = await startFakeProviderServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

/** The main provider the CLI builds for `provider` against the fake server, as a DeferredProvider. */
async function mainProvider(provider: "openai" | "openai-responses" | "anthropic" | "kimi", thinking?: string): Promise<DeferredProvider> {
  const baseUrl = provider === "anthropic" ? server.url : `${server.url}/v1`;
  const settings = await resolveSettings({ provider, model: "some-model", baseUrl, ...(thinking ? { thinking } : {}) }, { KOSONG_HOME: await tempDir(), KOSONG_API_KEY: "sk-real" });
  const { main } = await createProviders(settings, {});
  expect(main).toBeInstanceOf(DeferredProvider);
  return main as DeferredProvider;
}

async function text(provider: ChatProvider): Promise<string> {
  let out = "";
  for await (const part of await provider.generate("", [], [userMessage("hi")])) if (part.type === "text") out += part.text;
  return out;
}

/** An OpenAI provider for the fake server whose warm-up twin notes the base URLs it is given. */
function recordingProvider(urls: string[]): DeferredProvider {
  const build = async (apiKey: string, baseURL: string) => new (await import("@kosong/core/openai")).OpenAIChatProvider({ model: "m", apiKey, baseURL });
  const twin = (baseURL: string) => {
    urls.push(baseURL);
    return build("warm-up", baseURL);
  };
  return new DeferredProvider("openai", "m", () => build("sk-real", `${server.url}/v1`), null, null, true, { wire: "openai-chat", twin });
}

/** A request a server of this process received: the address it was sent to, its port, and its body. */
interface Received {
  address: string | undefined;
  port: number | undefined;
  body: string;
}

/**
 * Runs `run`, noting through Node's diagnostics channels every request a server of this process (other than the fake
 * provider server) received, with its whole body, and the origin of every request this process's fetch created.
 */
async function observed<T>(run: () => Promise<T>): Promise<{ received: Received[]; origins: string[]; result: T }> {
  const received: Received[] = [];
  const bodies: Promise<void>[] = [];
  const origins: string[] = [];
  const fakePort = Number(new URL(server.url).port);
  const onServerRequest = (message: unknown): void => {
    const { request, socket } = message as { request: import("node:http").IncomingMessage; socket: import("node:net").Socket };
    if (socket.localPort === fakePort) return;
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    bodies.push(once(request, "end").then(() => void received.push({ address: socket.localAddress, port: socket.localPort, body: Buffer.concat(chunks).toString("utf8") })));
  };
  const onFetch = (message: unknown): void => void origins.push(String((message as { request: { origin: string } }).request.origin));
  diagnostics.subscribe("http.server.request.start", onServerRequest);
  diagnostics.subscribe("undici:request:create", onFetch);
  try {
    const result = await run();
    await Promise.all(bodies);
    return { received, origins, result };
  } finally {
    diagnostics.unsubscribe("http.server.request.start", onServerRequest);
    diagnostics.unsubscribe("undici:request:create", onFetch);
  }
}

/** Whether something listens at `url`. */
async function listening(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return true;
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code === "ECONNREFUSED") return false;
    throw error;
  }
}

describe("the first turn's warm-up", () => {
  it("runs each SDK provider's request on a throwaway local server, sends the provider nothing, and the real request still works", async () => {
    for (const provider of ["openai", "openai-responses", "anthropic", "kimi"] as const) {
      const main = await mainProvider(provider);
      expect(await main.warmUp(() => true), provider).toBe("warmed");
      expect(server.requests, provider).toEqual([]);
      server.enqueue({ message: { role: "assistant", content: [{ type: "text", text: `real ${provider}` }] } });
      expect(await text(main)).toBe(`real ${provider}`);
      // The real request carries the real key (the twin's placeholder stays with the twin).
      expect(server.requests.map((request) => JSON.stringify(request.headers).includes("sk-real"))).toEqual([true]);
      server.reset();
    }
  });

  it("warms a provider with a thinking effort through its thinking copy", async () => {
    const main = await mainProvider("anthropic", "high");
    expect(await main.warmUp(() => true)).toBe("warmed");
    expect(server.requests).toEqual([]);
  });

  it("closes its server once done", async () => {
    const urls: string[] = [];
    expect(await recordingProvider(urls).warmUp(() => true)).toBe("warmed");
    expect(urls).toHaveLength(1);
    expect(urls[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await listening(urls[0]!)).toBe(false);
  });

  it("stops, closing its server, once the prompt stops waiting", async () => {
    const urls: string[] = [];
    let checks = 0;
    expect(await recordingProvider(urls).warmUp(() => checks++ === 0)).toBe("stopped");
    expect(await listening(urls[0]!)).toBe(false);
    expect(server.requests).toEqual([]);
  });

  it("sends its throwaway server on 127.0.0.1, and nothing else, the session's system prompt and tool definitions", async () => {
    const systemPrompt = "You are kosong, working in the warm-up test.";
    const tool: Tool = { name: "ReadFile", description: "Reads a file of the workspace.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
    for (const provider of ["openai", "openai-responses", "anthropic", "kimi"] as const) {
      const main = await mainProvider(provider);
      const { received, origins, result } = await observed(() => main.warmUp(() => true, { systemPrompt, tools: [tool] }));
      expect(result, provider).toBe("warmed");
      // The one request the warm-up sent reached a server of this process on 127.0.0.1, not the provider's.
      expect(received.map((request) => request.address), provider).toEqual(["127.0.0.1"]);
      expect(origins, provider).toEqual([`http://127.0.0.1:${received[0]!.port}`]);
      expect(server.requests, provider).toEqual([]);
      // Its body is the first request's, encoded: the system prompt and the tool's definition.
      const body = received[0]!.body;
      expect(body, provider).toContain(systemPrompt);
      expect(body, provider).toContain('"ReadFile"');
      expect(body, provider).toContain("Reads a file of the workspace.");
      expect(body, provider).toMatch(/"properties":\{"path":\{"type":"string"\}\}/);
    }
  });

  it("starts no server and builds no twin when the prompt already stopped waiting (Enter typed while the SDK loaded)", async () => {
    const urls: string[] = [];
    expect(await recordingProvider(urls).warmUp(() => false)).toBe("stopped");
    expect(urls).toEqual([]);
    expect(server.requests).toEqual([]);
  });

  it("is skipped when Node's fetch goes through a proxy from the environment", async () => {
    const main = await mainProvider("openai");
    process.env.NODE_USE_ENV_PROXY = "1";
    try {
      expect(await main.warmUp(() => true)).toBe("skipped");
    } finally {
      delete process.env.NODE_USE_ENV_PROXY;
    }
  });
});
