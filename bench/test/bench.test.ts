import { describe, expect, it } from "vitest";
import { loadBenchmarks } from "../src/discover.ts";
import { compare, median } from "../src/measure.ts";

const benchmarks = await loadBenchmarks();

describe("benchmarks", () => {
  it("are discovered from src/benchmarks", () => {
    expect(benchmarks.map((b) => b.file)).toContain("generate-merge.ts");
  });

  it.each(benchmarks.map((b) => [b.benchmark.name, b] as const))("%s runs in quick mode and reports finite positive timings", async (_, { benchmark }) => {
    const rows = await benchmark.run({ quick: true });
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.name).toBeTruthy();
      expect(row.baseline).toBeTruthy();
      for (const value of [row.ours_ms, row.baseline_ms, row.ratio]) {
        expect(Number.isFinite(value)).toBe(true);
        expect(value).toBeGreaterThan(0);
      }
      if (row.goal !== undefined) expect(row.goal).toBeGreaterThan(0);
    }
  });
});

describe("measure", () => {
  it("takes medians", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow();
  });

  it("runs both sides the same number of times, warm-up included", async () => {
    let ours = 0;
    let baseline = 0;
    const result = await compare(() => void ours++, async () => void baseline++, { warmup: 2, rounds: 5 });
    expect(ours).toBe(7);
    expect(baseline).toBe(7);
    expect(result.ours).toHaveLength(5);
    expect(result.baseline).toHaveLength(5);
  });
});
