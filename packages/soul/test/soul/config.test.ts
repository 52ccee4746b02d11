/**
 * The soul's settings: kimi-cli's defaults, the provider's window size as a
 * fallback, clear errors for settings that make no sense, thinking effort.
 */
import { defaultSoulConfig, resolveSoulConfig } from "@kosong/soul";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { describe, expect, it } from "vitest";
import { collect, testSoul } from "./helpers.js";

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
    });
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

  it("calls the model with the configured thinking effort", async () => {
    const { soul, provider } = await testSoul({ scripts: ["text: hi"], config: { thinkingEffort: "high" } });
    await collect(soul.run("go"));
    expect(provider.calls[0]!.thinkingEffort).toBe("high");
  });
});
