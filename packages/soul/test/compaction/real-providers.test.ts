/**
 * The LLM-backed strategies through the official SDK providers, against the
 * fake provider server on 127.0.0.1: what the summarising request carries
 * on the wire, and AutoCompaction's ladder when a real provider errs or
 * stops at its output limit.
 */
import { assistantMessage, extractText, type Message, userMessage } from "@kosong/core";
import { AnthropicProvider } from "@kosong/core/anthropic";
import { OpenAIChatProvider } from "@kosong/core/openai";
import { type FakeProviderServer, startFakeProviderServer } from "@kosong/core/testing";
import { AUTO_SUMMARY_SECTIONS, AutoCompaction, SimpleCompaction } from "@kosong/soul/compaction";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { expectValidWithin, taskHistory } from "./helpers/histories.js";

const GOOD = AUTO_SUMMARY_SECTIONS.map((section) => `## ${section}\nAbout ${section.toLowerCase()}.`).join("\n\n");
const usage = { input_other: 700, output: 90, input_cache_read: 0, input_cache_creation: 0 };

let server: FakeProviderServer;
beforeAll(async () => {
  server = await startFakeProviderServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const openai = () => new OpenAIChatProvider({ model: "gpt-4.1", apiKey: "test-key", baseURL: `${server.url}/v1` });
const anthropic = () => new AnthropicProvider({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url });
const history = (): Message[] => taskHistory(6, 80, "Port the CLI to Node 24. Keep the flags as they are.");

describe("LLM-backed compaction through the real SDKs", () => {
  it("SimpleCompaction sends one transcript message with no tools and keeps the recent messages", async () => {
    server.enqueue({ message: assistantMessage("The user wants the CLI on Node 24 with the same flags."), usage });
    const input = history();
    const result = await new SimpleCompaction().compact(input, { provider: openai(), instruction: "mention the flags" });

    const [request] = server.requests;
    const body = request!.body!;
    expect(body.tools ?? []).toEqual([]);
    const messages = body.messages as Array<{ role: string; content: unknown }>;
    expect(messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(JSON.stringify(messages[1]!.content)).toContain("Port the CLI to Node 24. Keep the flags as they are.");
    expect(JSON.stringify(messages[1]!.content)).toContain("mention the flags");
    expect(extractText(result.messages[0]!)).toContain("The user wants the CLI on Node 24 with the same flags.");
    expect(result.messages.slice(1)).toEqual(input.slice(-3)); // the last call with its result, and the answer
    expect(result.usage).toEqual(usage);
  });

  it("AutoCompaction falls back from a compact model that is overloaded (529) to the main model", async () => {
    server.enqueue({ status: 529, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } }, { message: assistantMessage(GOOD), usage });
    const input = [...history(), userMessage("and the docs?"), assistantMessage("Docs updated.")];
    const strategy = new AutoCompaction({ maxTokens: 3000, compactModel: { provider: anthropic(), contextSize: 200_000 } });
    const result = await strategy.compact(input, { provider: openai() });
    expectValidWithin(result, 3000);
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/messages", "/v1/chat/completions"]);
    expect(extractText(result.messages[0]!)).toContain("Context compressed using the main model (gpt-4.1).");
    expect(result.details!.notes.join("\n")).toMatch(/compact model \(claude-haiku-4-5\) failed: .*Overloaded/);
  });

  it("AutoCompaction rejects a summary a real provider cut off at max tokens", async () => {
    server.enqueue({ message: assistantMessage(GOOD), usage, finishReason: "max_tokens" }, { message: assistantMessage(GOOD), usage });
    const strategy = new AutoCompaction({ maxTokens: 3000, compactModel: { provider: anthropic(), contextSize: 200_000 } });
    const result = await strategy.compact(history(), { provider: openai() });
    expect(result.details!.notes.join("\n")).toMatch(/truncated summary/);
    expect(extractText(result.messages[0]!)).toContain("using the main model");
    expect(result.usage?.input_other).toBe(1400);
  });
});
