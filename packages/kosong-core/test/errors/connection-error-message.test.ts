/**
 * A connection that cannot be made is an APIConnectionError whose message
 * says why (the SDKs' own "Connection error." names neither the host nor the
 * reason): the three providers, through their official SDKs, against a port
 * nothing listens on.
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { APIConnectionError, generate, isRetryable, userMessage, type ChatProvider } from "@kosong/core";
import { AnthropicProvider } from "@kosong/core/anthropic";
import { OpenAIChatProvider, OpenAIResponsesProvider } from "@kosong/core/openai";

async function closedPort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const providers: Array<[string, (port: number) => ChatProvider]> = [
  ["OpenAIChatProvider", (port) => new OpenAIChatProvider({ model: "gpt-4.1", apiKey: "k", baseURL: `http://127.0.0.1:${port}/v1` })],
  ["OpenAIResponsesProvider", (port) => new OpenAIResponsesProvider({ model: "gpt-4.1", apiKey: "k", baseURL: `http://127.0.0.1:${port}/v1` })],
  ["AnthropicProvider", (port) => new AnthropicProvider({ model: "claude-sonnet-4-6", apiKey: "k", baseURL: `http://127.0.0.1:${port}` })],
];

describe("a refused connection", () => {
  it.each(providers)("%s: the APIConnectionError names the reason and the address", async (_name, make) => {
    const port = await closedPort();
    const error = await generate(make(port), "", [], [userMessage("hi")]).catch((e: unknown) => e);
    expect(APIConnectionError.isInstance(error)).toBe(true);
    expect(isRetryable(error)).toBe(true);
    expect((error as Error).message).toBe(`Connection error: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`);
  });
});
