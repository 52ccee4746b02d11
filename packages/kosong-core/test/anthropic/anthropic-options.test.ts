/**
 * What AnthropicProvider sends besides the conversation: thinking efforts per
 * model (as upstream kosong maps them), generation options, beta and custom
 * headers, metadata, environment defaults.
 */
import Anthropic from "@anthropic-ai/sdk";
import { ChatProviderError, userMessage, type ThinkingEffort } from "@kosong/core";
import { AnthropicProvider, DEFAULT_ANTHROPIC_MAX_TOKENS } from "@kosong/core/anthropic";
import { afterEach, describe, expect, it, vi } from "vitest";
import { anthropicFixture, anthropicProvider, collectParts } from "./helpers.js";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const server = useFakeProviderServer({ resetBeforeEach: true });
afterEach(() => vi.unstubAllEnvs());

/** Sends one request and returns what the server received. */
async function send(provider: AnthropicProvider): Promise<{ body: Record<string, unknown>; headers: Record<string, string> }> {
  server.enqueue({ fixture: anthropicFixture("stream-text.sse") });
  await collectParts(await provider.generate("", [], [userMessage("Think")]));
  const request = server.requests.at(-1)!;
  return { body: request.body as Record<string, unknown>, headers: request.headers };
}

/** The API key a request carried (`x-api-key`, or a bearer token with newer SDKs). */
function credential(headers: Record<string, string>): string | undefined {
  return headers["x-api-key"] ?? headers.authorization?.replace(/^Bearer /, "");
}

function provider(model: string): AnthropicProvider {
  return anthropicProvider(server, { model });
}

describe("withThinking (upstream kosong's mapping)", () => {
  // [model, effort, thinking, output_config (absent when undefined)]
  const cases: Array<[string, ThinkingEffort, unknown, unknown]> = [
    ["claude-sonnet-4-20250514", "high", { type: "enabled", budget_tokens: 32000 }, undefined],
    ["claude-sonnet-4-20250514", "low", { type: "enabled", budget_tokens: 1024 }, undefined],
    ["claude-haiku-4-5-20251001", "medium", { type: "enabled", budget_tokens: 4096 }, undefined],
    ["claude-3-5-sonnet-20240620", "high", { type: "enabled", budget_tokens: 32000 }, undefined],
    ["claude-sonnet-4-20250514", "max", { type: "enabled", budget_tokens: 32000 }, undefined],
    ["claude-opus-4-5", "xhigh", { type: "enabled", budget_tokens: 32000 }, { effort: "high" }],
    ["claude-opus-4-5", "low", { type: "enabled", budget_tokens: 1024 }, { effort: "low" }],
    ["claude-opus-4-6-20260205", "high", { type: "adaptive", display: "summarized" }, { effort: "high" }],
    ["claude-opus-4-6", "max", { type: "adaptive", display: "summarized" }, { effort: "max" }],
    ["claude-opus-4-6", "xhigh", { type: "adaptive", display: "summarized" }, { effort: "high" }],
    ["claude-opus-4-7", "xhigh", { type: "adaptive", display: "summarized" }, { effort: "xhigh" }],
    ["claude-opus-4-7", "low", { type: "adaptive", display: "summarized" }, { effort: "low" }],
    ["claude-opus-4-8", "high", { type: "adaptive", display: "summarized" }, { effort: "high" }],
    ["claude-opus-4-8", "xhigh", { type: "adaptive", display: "summarized" }, { effort: "high" }],
    ["claude-sonnet-4-6", "medium", { type: "adaptive", display: "summarized" }, { effort: "medium" }],
    ["claude-mythos-preview", "max", { type: "adaptive", display: "summarized" }, { effort: "max" }],
    ["claude-opus-4-6", "off", { type: "disabled" }, undefined],
  ];

  it.each(cases)("%s with %s", async (model, effort, thinking, outputConfig) => {
    const { body } = await send(provider(model).withThinking(effort));
    expect(body.thinking).toEqual(thinking);
    expect(body.output_config).toEqual(outputConfig);
  });

  it("does not read a date suffix as a version (sonnet-4-20250514 is not 4.20)", async () => {
    const { body } = await send(provider("claude-sonnet-4-20250514").withThinking("high"));
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 32000 });
  });

  it("clears output_config when switching from adaptive to off", async () => {
    const { body } = await send(provider("claude-opus-4-7").withThinking("high").withThinking("off"));
    expect(body.thinking).toEqual({ type: "disabled" });
    expect(body).not.toHaveProperty("output_config");
  });

  it("reports the effective effort", () => {
    for (const effort of ["low", "medium", "high", "xhigh", "max", "off"] as const) {
      expect(provider("claude-opus-4-7").withThinking(effort).thinkingEffort).toBe(effort);
    }
    for (const effort of ["low", "medium", "high", "off"] as const) {
      expect(provider("claude-opus-4-6-20260205").withThinking(effort).thinkingEffort).toBe(effort);
      expect(provider("claude-sonnet-4-20250514").withThinking(effort).thinkingEffort).toBe(effort);
    }
    expect(provider("claude-opus-4-6").withThinking("xhigh").thinkingEffort).toBe("high");
    expect(provider("claude-sonnet-4-20250514").withThinking("max").thinkingEffort).toBe("high");
    expect(provider("claude-sonnet-4-20250514").thinkingEffort).toBeNull();
  });

  it("returns a copy and leaves the original untouched", async () => {
    const base = provider("claude-opus-4-7");
    const thinking = base.withThinking("high");
    expect(thinking).not.toBe(base);
    expect(thinking.modelName).toBe("claude-opus-4-7");
    expect(thinking.name).toBe("anthropic");
    const { body, headers } = await send(base);
    expect(body).not.toHaveProperty("thinking");
    expect(headers["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14");
  });
});

describe("headers", () => {
  it("declares the interleaved-thinking beta by default and drops it with adaptive thinking", async () => {
    expect((await send(provider("claude-sonnet-4-20250514"))).headers["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14");
    expect((await send(provider("claude-sonnet-4-20250514").withThinking("high"))).headers["anthropic-beta"]).toBe(
      "interleaved-thinking-2025-05-14",
    );
    expect((await send(provider("claude-opus-4-6").withThinking("high"))).headers).not.toHaveProperty("anthropic-beta");
  });

  it("omits an empty anthropic-beta and lets extra headers win over the generated one", async () => {
    const base = provider("claude-sonnet-4-20250514").withGenerationOptions({ betaFeatures: [] });
    expect((await send(base)).headers).not.toHaveProperty("anthropic-beta");
    const custom = base.withGenerationOptions({
      betaFeatures: ["interleaved-thinking-2025-05-14"],
      extraHeaders: { "anthropic-beta": "custom-beta", "x-trace": "t1" },
    });
    const { headers } = await send(custom);
    expect(headers["anthropic-beta"]).toBe("custom-beta");
    expect(headers["x-trace"]).toBe("t1");
  });

  it("sends the API key and default headers", async () => {
    const { headers } = await send(anthropicProvider(server, { apiKey: "sk-ant-test", defaultHeaders: { "user-agent-extra": "kosong" } }));
    expect(credential(headers)).toBe("sk-ant-test");
    expect(headers["user-agent-extra"]).toBe("kosong");
  });

  it("reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL when not given", async () => {
    vi.stubEnv("ANTHROPIC_API_KEY", "sk-from-env");
    vi.stubEnv("ANTHROPIC_BASE_URL", server.url);
    const { headers } = await send(new AnthropicProvider({ model: "claude-haiku-4-5" }));
    expect(credential(headers)).toBe("sk-from-env");
  });

  it("without an API key, auth token or client, fails at construction with a message naming the options", () => {
    vi.stubEnv("ANTHROPIC_API_KEY", "");
    vi.stubEnv("ANTHROPIC_AUTH_TOKEN", "");
    const construct = (): AnthropicProvider => new AnthropicProvider({ model: "claude-haiku-4-5", baseURL: server.url });
    expect(construct).toThrow(ChatProviderError);
    expect(construct).toThrow(/needs an API key: pass `apiKey` or set ANTHROPIC_API_KEY/);
    expect(() => new AnthropicProvider({ model: "claude-haiku-4-5", apiKey: "", baseURL: server.url })).toThrow(ChatProviderError);
  });

  it("without an API key, sends ANTHROPIC_AUTH_TOKEN as a bearer token", async () => {
    vi.stubEnv("ANTHROPIC_API_KEY", "");
    vi.stubEnv("ANTHROPIC_AUTH_TOKEN", "tok-from-env");
    const { headers } = await send(new AnthropicProvider({ model: "claude-haiku-4-5", baseURL: server.url }));
    expect(headers.authorization).toBe("Bearer tok-from-env");
    expect(headers).not.toHaveProperty("x-api-key");
  });

  it("a caller-supplied client needs no API key of the provider", async () => {
    vi.stubEnv("ANTHROPIC_API_KEY", "");
    vi.stubEnv("ANTHROPIC_AUTH_TOKEN", "");
    const client = new Anthropic({ authToken: "tok-of-client", baseURL: server.url, maxRetries: 0 });
    const { headers } = await send(new AnthropicProvider({ model: "claude-haiku-4-5", client }));
    expect(headers.authorization).toBe("Bearer tok-of-client");
  });
});

describe("generation options", () => {
  it("sends max_tokens 50000 by default, streaming, tools always present", async () => {
    const { body } = await send(provider("claude-haiku-4-5"));
    expect(body.max_tokens).toBe(DEFAULT_ANTHROPIC_MAX_TOKENS);
    expect(DEFAULT_ANTHROPIC_MAX_TOKENS).toBe(50_000);
    expect(body.stream).toBe(true);
    expect(body.tools).toEqual([]);
    expect(body).not.toHaveProperty("system");
    expect(body).not.toHaveProperty("metadata");
    expect(body).not.toHaveProperty("temperature");
  });

  it("sends temperature, top_p, top_k, max_tokens and tool_choice", async () => {
    const p = anthropicProvider(server, { maxTokens: 1024 }).withGenerationOptions({
      temperature: 0.7,
      topP: 0.9,
      topK: 5,
      maxTokens: 2048,
      toolChoice: { type: "auto", disable_parallel_tool_use: true },
    });
    const { body } = await send(p);
    expect([body.temperature, body.top_p, body.top_k, body.max_tokens]).toEqual([0.7, 0.9, 5, 2048]);
    expect(body.tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
  });

  it("sends metadata", async () => {
    const { body } = await send(anthropicProvider(server, { metadata: { user_id: "session-1" } }));
    expect(body.metadata).toEqual({ user_id: "session-1" });
  });
});
