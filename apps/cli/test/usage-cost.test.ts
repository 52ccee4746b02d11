/**
 * The session cost the footer shows: each kind of token at its own price
 * (cache reads at the cached-input price, cache writes at the cache-write
 * price), models matched by name and snapshot only, config-file prices
 * winning over the table, and no cost for a model without a price.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { UsageError } from "../src/cli-error.js";
import { resolveSettings } from "../src/config/settings.js";
import { modelPrices, priceOf } from "../src/pricing/model-prices.js";
import { formatCost, usageCost } from "../src/pricing/usage-cost.js";
import { addUsage, footerLine, noTokens } from "../src/render/status-line.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

describe("usageCost", () => {
  it("prices fresh input, cache reads, cache writes and output each at their own rate", () => {
    const price = { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 };
    // 1M fresh input = $3, 2M cache reads = $0.60, 0.5M cache writes = $1.875, 0.1M output = $1.50.
    const usage = { input_other: 1_000_000, input_cache_read: 2_000_000, input_cache_creation: 500_000, output: 100_000 };
    expect(usageCost(usage, price)).toBeCloseTo(6.975, 10);
    // Cached tokens priced as fresh ones would cost $6 more: the discount is applied.
    expect(usageCost({ ...usage, input_other: 3_000_000, input_cache_read: 0 }, price)).toBeCloseTo(12.375, 10);
  });

  it("prices a cache write as input when the model has no cache-write price", () => {
    expect(usageCost({ input_other: 0, input_cache_read: 0, input_cache_creation: 1_000_000, output: 0 }, { input: 2.5, cachedInput: 1.25, output: 10 })).toBe(2.5);
  });

  it("formats small and large costs", () => {
    expect(formatCost(0.004_2)).toBe("$0.0042");
    expect(formatCost(12.345)).toBe("$12.35");
  });
});

describe("priceOf", () => {
  it("finds a model by its name, a dated snapshot or a vendor prefix, and never a longer name that starts the same", () => {
    expect(priceOf("claude-sonnet-4-20250514")).toBe(modelPrices["claude-sonnet-4"]);
    expect(priceOf("claude-opus-4-1-20250805")).toBe(modelPrices["claude-opus-4-1"]);
    expect(priceOf("gpt-4o-2024-08-06")).toBe(modelPrices["gpt-4o"]);
    expect(priceOf("openai/GPT-4o-mini")).toBe(modelPrices["gpt-4o-mini"]);
    expect(priceOf("gpt-4.1-nano")).toBeNull();
    expect(priceOf("gpt-5-nano")).toBeNull();
    expect(priceOf("test-model")).toBeNull();
  });

  it("takes the config file's price over the table's", async () => {
    const home = await tempDir();
    await writeFile(path.join(home, "config.toml"), '[prices."gpt-4o"]\ninput = 1\noutput = 2\n\n[prices.local-llama]\ninput = 0.5\ncached_input = 0.1\noutput = 1\ncache_write = 0.6\n');
    const { prices } = await resolveSettings({}, { KOSONG_HOME: home });
    expect(priceOf("gpt-4o", prices)).toEqual({ input: 1, cachedInput: 1, output: 2 });
    expect(priceOf("local-llama", prices)).toEqual({ input: 0.5, cachedInput: 0.1, output: 1, cacheWrite: 0.6 });
  });

  it("refuses a negative or unknown price field in the config file", async () => {
    const home = await tempDir();
    await writeFile(path.join(home, "config.toml"), '[prices.m]\ninput = -1\noutput = 2\ncache = 1\n');
    const error = await resolveSettings({}, { KOSONG_HOME: home }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/prices\.m\.input/);
    expect((error as Error).message).toMatch(/cache/);
  });
});

describe("the footer's cost", () => {
  const info = { model: "m", contextTokens: 0, usage: null, sessionId: "s", strategy: "simple", yolo: false };
  const usage = { input_other: 1000, input_cache_read: 3000, input_cache_creation: 0, output: 100 };
  const colours = pc.createColors(false);

  it("shows the session's cost when the model has a price, and none when it has not", () => {
    const priced = addUsage(addUsage(noTokens, usage, modelPrices["gpt-4o"]!), usage, modelPrices["gpt-4o"]!);
    // 2 x (1000 x 2.5 + 3000 x 1.25 + 100 x 10) / 1M = $0.0145
    expect(footerLine(info, priced, colours)).toContain("in 8.0k · out 200 · cached 6.0k · $0.0145");
    expect(footerLine(info, addUsage(noTokens, usage, null), colours)).not.toContain("$");
    // A priced call and one of a model without a price: what is known, as a lower bound.
    expect(footerLine(info, addUsage(priced, usage, null), colours)).toContain("· ≥$0.0145");
  });
});
