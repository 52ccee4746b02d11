import { describe, expect, it } from "vitest";
import { inputTokens, sumTokenUsage, tokenUsage, totalTokens } from "@kosong/core";

describe("TokenUsage", () => {
  it("fills missing counters with 0", () => {
    expect(tokenUsage()).toEqual({ input_other: 0, output: 0, input_cache_read: 0, input_cache_creation: 0 });
    expect(tokenUsage({ output: 7 })).toEqual({ input_other: 0, output: 7, input_cache_read: 0, input_cache_creation: 0 });
  });

  it("derives input as uncached + cache read + cache creation, and total as input + output", () => {
    const usage = tokenUsage({ input_other: 100, output: 20, input_cache_read: 900, input_cache_creation: 50 });
    expect(inputTokens(usage)).toBe(1050);
    expect(totalTokens(usage)).toBe(1070);
  });

  it("sums usages counter by counter, skipping missing ones, without touching its inputs", () => {
    const a = tokenUsage({ input_other: 1, output: 2, input_cache_read: 3, input_cache_creation: 4 });
    const b = tokenUsage({ input_other: 10, output: 20, input_cache_read: 30, input_cache_creation: 40 });
    const sum = sumTokenUsage(a, null, b, undefined);
    expect(sum).toEqual({ input_other: 11, output: 22, input_cache_read: 33, input_cache_creation: 44 });
    expect(a).toEqual(tokenUsage({ input_other: 1, output: 2, input_cache_read: 3, input_cache_creation: 4 }));
    expect(sum).not.toBe(a);
    expect(sumTokenUsage()).toEqual(tokenUsage());
  });
});
