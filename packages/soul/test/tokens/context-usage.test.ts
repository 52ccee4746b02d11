import { contextUsage } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";

describe("contextUsage", () => {
  it("uses the soul's 85 % ratio by default", () => {
    expect(contextUsage(100_000, 200_000)).toEqual({
      used: 100_000,
      max: 200_000,
      percent: 50,
      threshold: 170_000,
      tokensToThreshold: 70_000,
      compactionDue: false,
      trigger: "ratio",
    });
    expect(contextUsage(170_000, 200_000).compactionDue).toBe(true);
    expect(contextUsage(169_999, 200_000).compactionDue).toBe(false);
  });

  it("uses kimi-cli's reserve when given, and the earlier of both triggers when both are", () => {
    const reserve = contextUsage(150_000, 200_000, { reservedContextSize: 50_000 });
    expect(reserve).toMatchObject({ threshold: 150_000, compactionDue: true, trigger: "reserve", tokensToThreshold: 0 });
    // kimi-cli's soul defaults: ratio 0.85 and reserve 50k on a 200k window -> the reserve (150k) comes first
    const both = contextUsage(149_999, 200_000, { triggerRatio: 0.85, reservedContextSize: 50_000 });
    expect(both).toMatchObject({ threshold: 150_000, compactionDue: false, trigger: "reserve", tokensToThreshold: 1 });
    // on a 1M window the ratio (850k) comes before the reserve (950k)
    expect(contextUsage(900_000, 1_000_000, { triggerRatio: 0.85, reservedContextSize: 50_000 })).toMatchObject({
      threshold: 850_000,
      compactionDue: true,
      trigger: "ratio",
    });
  });

  it("reports a percentage above 100 when the context overflows", () => {
    expect(contextUsage(250, 200).percent).toBe(125);
  });

  it("rejects a window, a count, a ratio or a reserve that makes no sense", () => {
    expect(() => contextUsage(1, 0)).toThrow(RangeError);
    expect(() => contextUsage(1, Number.NaN)).toThrow(/maxContextSize/);
    expect(() => contextUsage(-1, 10)).toThrow(/tokens/);
    expect(() => contextUsage(1, 10, { triggerRatio: 1.5 })).toThrow(/triggerRatio/);
    expect(() => contextUsage(1, 10, { reservedContextSize: -5 })).toThrow(/reservedContextSize/);
  });
});
