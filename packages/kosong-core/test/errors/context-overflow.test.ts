/**
 * Context overflow is recognised on every server we name: each entry of
 * `contextOverflowPatterns` is served as that server's error body (the
 * entry's example, whose source the table names) by the fake provider
 * server, through the official SDK, and must come back as an
 * `APIContextOverflowError` (so the soul compacts instead of failing) from
 * both the Chat Completions and the Anthropic provider.
 */
import { describe, expect, it } from "vitest";
import {
  APIContextOverflowError,
  APIStatusError,
  contextOverflowPatterns,
  generate,
  isRetryable,
  userMessage,
  type ChatProvider,
} from "@kosong/core";
import { AnthropicProvider } from "@kosong/core/anthropic";
import { OpenAIChatProvider } from "@kosong/core/openai";
import { useFakeProviderServer } from "../helpers/fake-server.js";
import { rejection } from "../helpers/rejection.js";

const server = useFakeProviderServer({ resetBeforeEach: true });

const chat = (): ChatProvider => new OpenAIChatProvider({ model: "m", apiKey: "test", baseURL: `${server.url}/v1` });
const anthropic = (): ChatProvider => new AnthropicProvider({ model: "claude-sonnet-4-5", apiKey: "test", baseURL: server.url });

describe("context overflow wordings", () => {
  it.each(contextOverflowPatterns)("$server: its example matches its own pattern", ({ pattern, example }) => {
    expect(pattern.test(example.body.error.message)).toBe(true);
  });

  it.each(contextOverflowPatterns)("$server: served over HTTP, is an APIContextOverflowError (Chat Completions)", async ({ example }) => {
    server.enqueue({ status: example.status, body: example.body });
    const error = await rejection(generate(chat(), "", [], [userMessage("long")]));
    expect(APIContextOverflowError.isInstance(error), error.message).toBe(true);
    expect(isRetryable(error)).toBe(false);
  });

  it.each(contextOverflowPatterns)("$server: served over HTTP, is an APIContextOverflowError (Anthropic)", async ({ example }) => {
    server.enqueue({ status: example.status, body: { type: "error", error: { type: "invalid_request_error", message: example.body.error.message } } });
    const error = await rejection(generate(anthropic(), "", [], [userMessage("long")]));
    expect(APIContextOverflowError.isInstance(error), error.message).toBe(true);
  });

  it("also inside a 200 stream, where the numeric code gives the status (llama.cpp)", async () => {
    const llama = contextOverflowPatterns.find((entry) => entry.server === "llama.cpp server")!;
    server.enqueue({ sse: [`data: ${JSON.stringify(llama.example.body)}\n\n`] });
    const error = await rejection(generate(chat(), "", [], [userMessage("long")]));
    expect(APIContextOverflowError.isInstance(error)).toBe(true);
    expect((error as APIStatusError).statusCode).toBe(400);
  });

  it("other 400s and a 429 mentioning tokens are not overflow", async () => {
    server.enqueue(
      { status: 400, body: { error: { message: "Unsupported parameter: 'max_tokens'", type: "invalid_request_error" } } },
      { status: 429, body: { error: { message: "Rate limit reached: too many tokens per minute", type: "tokens", code: "rate_limit_exceeded" } } },
    );
    for (const status of [400, 429]) {
      const error = await rejection(generate(chat(), "", [], [userMessage("hi")]));
      expect((error as APIStatusError).statusCode).toBe(status);
      expect(APIContextOverflowError.isInstance(error)).toBe(false);
    }
  });
});
