import { AutoCompaction, PreserveImportantCompaction, PreserveRecentCompaction, SimpleCompaction, SmartCompaction } from "@kosong/soul/compaction";
import { calibratedTokenScale, estimateTokens } from "@kosong/soul/tokens";
import { validateConversation } from "@kosong/soul/conversation";
import { describe, expect, it } from "vitest";
import { taskHistory } from "../compaction/helpers/histories.js";

describe("calibratedTokenScale", () => {
  it("is the provider's ratio to the estimate with a margin, bounded, and a safety margin when nothing is known", () => {
    expect(calibratedTokenScale(1240, 1000)).toBeCloseTo(1.24 * 1.06);
    expect(calibratedTokenScale(1100, 1000, { margin: 0 })).toBeCloseTo(1.1);
    expect(calibratedTokenScale(9000, 1000)).toBeCloseTo(1.6 * 1.06);
    expect(calibratedTokenScale(100, 1000)).toBeCloseTo(0.8 * 1.06);
    for (const [provider, estimate] of [[0, 1000], [1000, 0], [null, 1000], [Number.NaN, 5]] as const) {
      expect(calibratedTokenScale(provider, estimate)).toBe(1.25);
    }
  });
});

describe("budgets in the provider's tokens", () => {
  const history = taskHistory(40, 120);
  const estimate = estimateTokens(history);
  const maxTokens = Math.floor(estimate * 0.3);
  const strategies = [
    () => new PreserveRecentCompaction({ maxTokens }),
    () => new PreserveImportantCompaction({ maxTokens }),
    () => new SmartCompaction({ maxTokens }),
    () => new SimpleCompaction({ maxTokens }),
    () => new AutoCompaction({ maxTokens }),
  ];

  it.each(strategies.map((make) => [make().name, make] as const))("%s holds the budget by the provider's count (estimate x its ratio)", async (_, make) => {
    // The provider counted 30 % more than the estimate for the whole history.
    const providerCount = { inputTokens: Math.round(estimate * 1.3), messages: history.length };
    const result = await make().compact(history, { providerCount });
    expect(validateConversation(result.messages)).toEqual([]);
    const tokens = estimateTokens(result.messages);
    expect(tokens * 1.3).toBeLessThanOrEqual(maxTokens);
    // ...and still fills most of it, where the uncalibrated one (same strategy, no count) goes over by the provider's count.
    expect(tokens * 1.3).toBeGreaterThan(maxTokens * 0.7);
    const uncalibrated = estimateTokens((await make().compact(history)).messages);
    expect(uncalibrated * 1.3).toBeGreaterThan(maxTokens);
    // tokensAfter is in the provider's tokens as calibrated (with the margin).
    expect(Math.abs(result.details!.tokensAfter! - tokens * 1.3 * 1.06)).toBeLessThan(2);
  });

  it("keeps a safety margin before any usage is known, and takes an explicit scale", async () => {
    const unknown = await new PreserveRecentCompaction({ maxTokens }).compact(history, { providerCount: { inputTokens: 0, messages: 0 } });
    expect(estimateTokens(unknown.messages)).toBeLessThanOrEqual(maxTokens / 1.25);
    const explicit = await new PreserveRecentCompaction({ maxTokens }).compact(history, { tokenScale: 2 });
    expect(estimateTokens(explicit.messages)).toBeLessThanOrEqual(maxTokens / 2);
    await expect(new PreserveRecentCompaction({ maxTokens }).compact(history, { tokenScale: -1 })).rejects.toThrow(/tokenScale/);
  });
});
