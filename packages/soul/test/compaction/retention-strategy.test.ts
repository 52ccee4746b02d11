import { MockChatProvider } from "@kosong/core/testing";
import { CompactionError } from "@kosong/soul";
import { createRetentionStrategy, defaultCompaction, PreserveImportantCompaction, PreserveRecentCompaction, SimpleCompaction, SmartCompaction } from "@kosong/soul/compaction";
import { estimateTokens } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";
import { expectValidWithin, taskHistory } from "./helpers/histories.js";

describe("createRetentionStrategy", () => {
  it("maps the preferences as Kode-cli does, with a budget of 70 % of the target", async () => {
    expect(createRetentionStrategy(10_000, 0, "aggressive")).toBeInstanceOf(PreserveRecentCompaction);
    expect(createRetentionStrategy(10_000, 0, "balanced")).toBeInstanceOf(PreserveImportantCompaction);
    expect(createRetentionStrategy(10_000, 0)).toBeInstanceOf(PreserveImportantCompaction);
    expect(createRetentionStrategy(10_000, 0, "conservative")).toBeInstanceOf(SmartCompaction);

    const history = taskHistory(30, 100);
    const target = Math.floor(estimateTokens(history) / 2);
    for (const preference of ["aggressive", "balanced", "conservative"] as const) {
      const result = await createRetentionStrategy(target, estimateTokens(history), preference).compact(history);
      expectValidWithin(result, Math.floor(target * 0.7));
      // the retention strategies fill the budget; the summarising one may use less
      if (preference !== "conservative") expect(estimateTokens(result.messages)).toBeGreaterThan(target * 0.6);
    }
  });

  it("rejects a target, a ratio or a preference that makes no sense", () => {
    expect(() => createRetentionStrategy(0, 0)).toThrow(CompactionError);
    expect(() => createRetentionStrategy(100, 0, "balanced", { budgetRatio: 2 })).toThrow(/budgetRatio/);
    expect(() => createRetentionStrategy(100, -1)).toThrow(/currentTokens/);
    expect(() => createRetentionStrategy(100, 0, "reckless" as "balanced")).toThrow(/unknown preference/);
  });
});

describe("defaultCompaction", () => {
  it("is SimpleCompaction with a provider and PreserveImportantCompaction within half the window without", async () => {
    expect(defaultCompaction({ provider: new MockChatProvider([]), maxContextSize: 10_000 })).toBeInstanceOf(SimpleCompaction);
    const strategy = defaultCompaction({ maxContextSize: 4000 });
    expect(strategy).toBeInstanceOf(PreserveImportantCompaction);
    expectValidWithin(await strategy.compact(taskHistory(40, 100)), 2000);
  });
});
