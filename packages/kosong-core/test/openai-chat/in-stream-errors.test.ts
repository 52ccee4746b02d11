/**
 * Errors inside a 200 stream are classified like HTTP errors, so that the
 * soul retries what may succeed and stops on what cannot.
 *
 * Formats:
 * - OpenRouter, "Errors and Debugging" (openrouter.ai/docs/api/reference/errors-and-debugging):
 *   `{"error": {"code": <HTTP status as a number>, "message": ...}}`; mid-generation errors arrive as
 *   a `data:` chunk with that `error` field and `choices[0].finish_reason: "error"`.
 * - vLLM's OpenAI-compatible server: `ErrorResponse` `{"error": {"object": "error", "message", "type":
 *   "BadRequestError" | "NotFoundError" | "InternalServerError", "param", "code": <status>}}`.
 */
import { describe, expect, it } from "vitest";
import {
  APIQuotaExhaustedError,
  APIStatusError,
  generate,
  isRetryable,
  textPart,
  userMessage,
} from "@kosong/core";
import { OpenAIChatProvider } from "@kosong/core/openai";
import { useFakeProviderServer } from "../helpers/fake-server.js";
import { rejection } from "../helpers/rejection.js";

const server = useFakeProviderServer({ resetBeforeEach: true });

const base = { id: "gen-1", object: "chat.completion.chunk", created: 0, model: "m", provider: "SomeProvider" };
const data = (payload: object): string => `data: ${JSON.stringify(payload)}\n\n`;
const text = (content: string): string => data({ ...base, choices: [{ index: 0, delta: { content }, finish_reason: null }] });

/** OpenRouter's mid-generation error chunk. */
function openRouterError(code: number | string, message: string): string {
  return data({ ...base, error: { code, message }, choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }] });
}

async function streamError(frames: string[]): Promise<Error> {
  server.enqueue({ sse: [text("Hel"), text("lo"), ...frames] });
  const provider = new OpenAIChatProvider({ model: "m", apiKey: "test", baseURL: `${server.url}/v1` });
  return rejection(generate(provider, "", [], [userMessage("hi")]));
}

describe("errors inside a 200 Chat Completions stream", () => {
  it.each([
    [400, false],
    [401, false],
    [403, false],
    [408, true],
    [429, true],
    [502, true],
    [503, true],
  ])("OpenRouter's numeric code %i is that HTTP status (retryable: %s)", async (code, retryable) => {
    const error = await streamError([openRouterError(code, "Provider returned error")]);
    expect(APIStatusError.isInstance(error)).toBe(true);
    expect((error as APIStatusError).statusCode).toBe(code);
    expect(isRetryable(error)).toBe(retryable);
    expect(error.message).toContain("Provider returned error");
  });

  it("a mid-stream 402 (insufficient credits) is quota exhaustion, never retried", async () => {
    const error = await streamError([openRouterError(402, "Insufficient credits. Add more using https://openrouter.ai/credits")]);
    expect(APIQuotaExhaustedError.isInstance(error)).toBe(true);
    expect((error as APIStatusError).statusCode).toBe(402);
    expect(isRetryable(error)).toBe(false);
  });

  it.each([
    ["BadRequestError", 400, false],
    ["NotFoundError", 404, false],
    ["InternalServerError", 500, true],
  ])("vLLM's %s maps to %i, with or without its numeric code", async (type, status, retryable) => {
    for (const error of [
      await streamError([data({ error: { object: "error", message: "vLLM failed", type, param: null, code: status } })]),
      await streamError([data({ error: { object: "error", message: "vLLM failed", type, param: null } })]),
    ]) {
      expect((error as APIStatusError).statusCode).toBe(status);
      expect((error as APIStatusError).errorType).toBe(type);
      expect(isRetryable(error)).toBe(retryable);
    }
  });

  it('finish_reason "error" without an error object is a retryable server error, not a finished message', async () => {
    const error = await streamError([data({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "error" }] }), "data: [DONE]\n\n"]);
    expect(APIStatusError.isInstance(error)).toBe(true);
    expect((error as APIStatusError).statusCode).toBe(500);
    expect(isRetryable(error)).toBe(true);
  });

  it('a non-stream completion with finish_reason "error" is the same error', async () => {
    server.enqueue({
      status: 200,
      body: { id: "gen-2", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "" }, finish_reason: "error" }] },
    });
    const provider = new OpenAIChatProvider({ model: "m", apiKey: "test", baseURL: `${server.url}/v1`, stream: false });
    const error = await rejection(generate(provider, "", [], [userMessage("hi")]));
    expect((error as APIStatusError).statusCode).toBe(500);
  });

  it("a stream whose chunks finish normally is still a message (the classification only touches errors)", async () => {
    server.enqueue({ sse: [text("Hi"), data({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }), "data: [DONE]\n\n"] });
    const provider = new OpenAIChatProvider({ model: "m", apiKey: "test", baseURL: `${server.url}/v1` });
    const result = await generate(provider, "", [], [userMessage("hi")]);
    expect(result.message.content).toEqual([textPart("Hi")]);
  });
});
