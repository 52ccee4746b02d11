/**
 * The OpenAI entries of errors-reference/error-bodies.json (real error bodies
 * and headers) returned to OpenAIResponsesProvider's stream request: each
 * becomes the typed error a caller (the soul) decides retries with.
 */
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import {
  APIContextOverflowError,
  APIQuotaExhaustedError,
  APIStatusError,
  isRetryable,
  userMessage,
  type JsonValue,
} from "@kosong/core";
import { OpenAIResponsesProvider } from "@kosong/core/openai";
import { fixture } from "@kosong/test-support";
import { useFakeProviderServer } from "../helpers/fake-server.js";

interface ErrorEntry {
  api: string;
  status: number;
  name: string;
  body: JsonValue;
  headers: Record<string, string>;
}

const entries = (JSON.parse(readFileSync(fixture("provider-streams/errors-reference/error-bodies.json"), "utf8")) as ErrorEntry[]).filter(
  (e) => e.api === "openai",
);

/** What each OpenAI entry must become. */
const expectations: Record<string, { quota: boolean; retryable: boolean; retryAfterMs: number | null; errorCode: string | null }> = {
  "rate_limit_exceeded (tokens)": { quota: false, retryable: true, retryAfterMs: 1000, errorCode: "rate_limit_exceeded" },
  insufficient_quota: { quota: true, retryable: false, retryAfterMs: null, errorCode: "insufficient_quota" },
  invalid_api_key: { quota: false, retryable: false, retryAfterMs: null, errorCode: "invalid_api_key" },
  server_error: { quota: false, retryable: true, retryAfterMs: null, errorCode: null },
};

const server = useFakeProviderServer();

it("has an expectation for every OpenAI entry", () => {
  expect(entries.map((e) => e.name).sort()).toEqual(Object.keys(expectations).sort());
});

it.each(entries.map((e) => [e.name, e] as const))("%s", async (name, entry) => {
  const expected = expectations[name]!;
  server.enqueue({ status: entry.status, body: entry.body, headers: entry.headers });
  const provider = new OpenAIResponsesProvider({ model: "gpt-5", apiKey: "test-key", baseURL: `${server.url}/v1` });
  const error = await provider.generate("", [], [userMessage("hi")]).then(
    () => {
      throw new Error("no error");
    },
    (e: unknown) => e,
  );
  expect(APIStatusError.isInstance(error)).toBe(true);
  const e = error as APIStatusError;
  expect(e.statusCode).toBe(entry.status);
  expect(e.requestId).toBe(entry.headers["x-request-id"]);
  expect(e.retryAfterMs).toBe(expected.retryAfterMs);
  expect(e.errorCode).toBe(expected.errorCode);
  const body = (entry.body as { error: { message: string; type: string; code: string | null } }).error;
  expect(e.message).toBe(`${entry.status} ${body.code ?? body.type}: ${body.message}`);
  expect(APIQuotaExhaustedError.isInstance(e)).toBe(expected.quota);
  expect(APIContextOverflowError.isInstance(e)).toBe(false);
  expect(isRetryable(e)).toBe(expected.retryable);
});
