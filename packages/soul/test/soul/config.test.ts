/**
 * The soul's settings: kimi-cli's defaults, the provider's window size as a
 * fallback, clear errors for settings that make no sense, thinking effort.
 */
import { contextWindowOf, modelContextWindows } from "@kosong/core";
import { AnthropicProvider } from "@kosong/core/anthropic";
import { KimiChatProvider, OpenAIChatProvider, OpenAIResponsesProvider } from "@kosong/core/openai";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { defaultSoulConfig } from "@kosong/soul";
import { resolveSoulConfig } from "@kosong/soul/internal";
import { describe, expect, it } from "vitest";
import { collect, ofType, testSoul } from "./helpers.js";

describe("SoulConfig", () => {
  it("defaults to kimi-cli's loop control", () => {
    expect(resolveSoulConfig()).toEqual({
      maxStepsPerTurn: 1000,
      maxRetriesPerStep: 3,
      reservedContextSize: 50_000,
      compactionTriggerRatio: 0.85,
      maxContextSize: null,
      thinkingEffort: null,
      cancelGraceMs: 5000,
      retry: { initialDelayMs: 300, maxDelayMs: 5000, jitterMs: 500, maxRetryAfterMs: 60_000 },
      llmTimeouts: {},
      toolTimeouts: {},
      toolResultAging: { minTokens: 1000, keepRecent: 6, excerptTokens: 200 },
    });
    expect(resolveSoulConfig({ toolResultAging: { keepRecent: 2 } }).toolResultAging).toEqual({ minTokens: 1000, keepRecent: 2, excerptTokens: 200 });
    expect(resolveSoulConfig({ toolResultAging: null }).toolResultAging).toBeNull();
    expect(() => resolveSoulConfig({ toolResultAging: { minTokens: -1 } })).toThrow(/toolResultAging.minTokens/);
    expect(resolveSoulConfig({ retry: { maxRetryAfterMs: 1 } }).retry).toEqual({ ...defaultSoulConfig.retry, maxRetryAfterMs: 1 });
  });

  it("takes the window size from the caller, else from the provider", () => {
    const provider = Object.assign(new ScriptedChatProvider([]), { maxContextSize: 128_000 });
    expect(resolveSoulConfig({}, provider).maxContextSize).toBe(128_000);
    expect(resolveSoulConfig({ maxContextSize: 8000 }, provider).maxContextSize).toBe(8000);
    expect(resolveSoulConfig({}, new ScriptedChatProvider([])).maxContextSize).toBeNull();
  });

  it("rejects settings that make no sense, naming them", () => {
    expect(() => resolveSoulConfig({ maxStepsPerTurn: 0 })).toThrowError(/maxStepsPerTurn/);
    expect(() => resolveSoulConfig({ maxRetriesPerStep: 1.5 })).toThrowError(/maxRetriesPerStep/);
    expect(() => resolveSoulConfig({ compactionTriggerRatio: 1.5 })).toThrowError(/compactionTriggerRatio/);
    expect(() => resolveSoulConfig({ maxContextSize: -1 })).toThrowError(/maxContextSize/);
    expect(() => resolveSoulConfig({ retry: { initialDelayMs: Number.NaN } })).toThrowError(/retry.initialDelayMs/);
    expect(() => resolveSoulConfig({ maxStepsPerTurn: 0 })).toThrowError(RangeError);
  });

  it("checks the reserve against the window: a default one scales down, an explicit one too large is a RangeError", () => {
    // kimi-cli's 50,000 stands for large windows; a small window keeps a quarter of itself free.
    expect(resolveSoulConfig({ maxContextSize: 200_000 }).reservedContextSize).toBe(50_000);
    expect(resolveSoulConfig({ maxContextSize: 32_768 }).reservedContextSize).toBe(8192);
    expect(resolveSoulConfig({ maxContextSize: 32_768, reservedContextSize: 16_000 }).reservedContextSize).toBe(16_000);
    expect(() => resolveSoulConfig({ maxContextSize: 32_768, reservedContextSize: 50_000 })).toThrowError(RangeError);
    expect(() => resolveSoulConfig({ maxContextSize: 32_768, reservedContextSize: 16_384 })).toThrowError(
      /reservedContextSize \(16384\) must be less than half of maxContextSize \(32768\).*at most 16383/,
    );
  });

  it("does not compact on every step when the window is small (four one-line turns, four LLM calls)", async () => {
    const { soul, provider } = await testSoul({ scripts: ["text: a", "text: b", "text: c", "text: d"], config: { maxContextSize: 32_768 } });
    for (const input of ["one", "two", "three", "four"]) expect((await collect(soul.run(input))).result.stopReason).toBe("no_tool_calls");
    expect(provider.calls).toHaveLength(4);
  });

  it("knows the window of current models through the SDK providers, overridable", () => {
    const key = { apiKey: "k" };
    const cases: Array<[{ maxContextSize?: number | null; modelName: string }, number | null]> = [
      [new OpenAIChatProvider({ ...key, model: "gpt-4.1-2025-04-14" }), 1_047_576],
      [new OpenAIChatProvider({ ...key, model: "gpt-4o-mini" }), 128_000],
      [new OpenAIChatProvider({ ...key, model: "deepseek-reasoner", baseURL: "http://127.0.0.1:1/v1" }), 128_000],
      [new OpenAIResponsesProvider({ ...key, model: "gpt-5" }), 400_000],
      [new KimiChatProvider({ ...key, model: "kimi-k2-turbo-preview" }), 262_144],
      [new AnthropicProvider({ ...key, model: "claude-sonnet-4-5" }), 200_000],
      [new OpenAIChatProvider({ ...key, model: "qwen3:8b" }), null],
      [new OpenAIChatProvider({ ...key, model: "qwen3:8b", maxContextSize: 40_960 }), 40_960],
      [new AnthropicProvider({ ...key, model: "claude-sonnet-4-5", maxContextSize: 1_000_000 }), 1_000_000],
    ];
    for (const [provider, window] of cases) expect([provider.modelName, provider.maxContextSize]).toEqual([provider.modelName, window]);
    expect(new AnthropicProvider({ ...key, model: "claude-opus-4-1" }).withThinking("high").maxContextSize).toBe(200_000);
    expect(resolveSoulConfig({}, new OpenAIChatProvider({ ...key, model: "gpt-4o" })).maxContextSize).toBe(128_000);
    expect(contextWindowOf("openai/GPT-4.1")).toBe(1_047_576);
    expect(contextWindowOf("my-model", { ...modelContextWindows, "my-": 8192 })).toBe(8192);
  });

  it("says once, with a Warning event, that the window is unknown", async () => {
    const { soul } = await testSoul({ scripts: ["text: a", "text: b"] });
    const first = await collect(soul.run("one"));
    expect(first.events.map((e) => e.type).slice(0, 2)).toEqual(["TurnBegin", "Warning"]);
    expect(ofType(first.events, "Warning")[0]!.payload).toMatchObject({ code: "context_window_unknown", message: expect.stringMatching(/maxContextSize/) });
    expect(ofType((await collect(soul.run("two"))).events, "Warning")).toEqual([]);
    const known = await testSoul({ scripts: ["text: a"], config: { maxContextSize: 100_000 } });
    expect(ofType((await collect(known.soul.run("one"))).events, "Warning")).toEqual([]);
  });

  it("calls the model with the configured thinking effort", async () => {
    const { soul, provider } = await testSoul({ scripts: ["text: hi"], config: { thinkingEffort: "high" } });
    await collect(soul.run("go"));
    expect(provider.calls[0]!.thinkingEffort).toBe("high");
  });
});
