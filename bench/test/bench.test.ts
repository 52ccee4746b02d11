import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { loadBenchmarks } from "../src/discover.ts";
import { compare, median, roundRobin } from "../src/measure.ts";

/** context-postgres needs a PostgreSQL server: context-postgres.test.ts runs it, in the vitest project that starts one. */
const benchmarks = (await loadBenchmarks()).filter((b) => b.file !== "context-postgres.ts");

describe("benchmarks", () => {
  it("are discovered from src/benchmarks", () => {
    expect(benchmarks.map((b) => b.file)).toContain("generate-merge.ts");
  });

  it.each(benchmarks.map((b) => [b.benchmark.name, b] as const))("%s runs in quick mode and reports finite positive timings", async (_, { benchmark }) => {
    const rows = await benchmark.run({ quick: true });
    // A benchmark against a tool that is not installed here (e.g. Codex CLI) reports nothing.
    if (benchmark.available?.() === false) return expect(rows).toEqual([]);
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
    // A quick run beside Codex CLI (KOSONG_BENCH_CODEX set) starts some twenty interactive sessions: over 30 s on a loaded machine.
  }, 120_000);
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

  it("runs every side of a round robin once per round, each round starting one side further on", async () => {
    const calls: string[] = [];
    const times = await roundRobin({ a: () => void calls.push("a"), b: () => void calls.push("b"), c: () => void calls.push("c") }, { warmup: 1, rounds: 3 });
    expect(calls.join("")).toBe("abc" + "abc" + "bca" + "cab");
    for (const side of ["a", "b", "c"]) expect(times[side]).toHaveLength(3);
  });
});

describe("the runner (node src/run.ts, as `pnpm bench` runs it)", () => {
  const benchDir = fileURLToPath(new URL("..", import.meta.url));
  const run = (args: string[]) => promisify(execFile)(process.execPath, ["src/run.ts", ...args], { cwd: benchDir });

  it("runs the filtered benchmarks, prints the table and writes the rows as JSON", async () => {
    // The runner loads every benchmark file against the packages' built dist/ (`pnpm test` builds first).
    for (const pkg of ["kosong-core", "kosong-context"]) {
      if (!existsSync(path.join(benchDir, "..", "packages", pkg, "dist", "index.js"))) {
        throw new Error(`packages/${pkg}/dist is missing: run \`pnpm turbo run build --filter=@kosong/bench...\` first`);
      }
    }
    const dir = mkdtempSync(path.join(tmpdir(), "kosong-bench-"));
    try {
      const out = path.join(dir, "nested", "results.json");
      const { stdout } = await run(["--quick", "--out", out, "generate-merge"]);
      const lines = stdout.split("\n");
      expect(lines[0]).toMatch(/^benchmark\s+name\s+ours ms\s+baseline\s+baseline ms\s+ratio\s+goal\s+result$/);
      const rows = lines.filter((l) => l.startsWith("generate-merge "));
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row).toMatch(/\d\.\d\d\s+<= 1\.3\s+(pass|MISS)\s*$/);
      expect(stdout).toContain(`wrote ${out}`);
      const report = JSON.parse(readFileSync(out, "utf8")) as { quick: boolean; filters: string[]; rows: Array<Record<string, unknown>> };
      expect(report.quick).toBe(true);
      expect(report.filters).toEqual(["generate-merge"]);
      expect(report.rows).toHaveLength(rows.length);
      for (const row of report.rows) {
        expect(row).toMatchObject({ benchmark: "generate-merge", baseline: expect.any(String), goal: 1.3 });
        for (const key of ["ours_ms", "baseline_ms", "ratio"]) expect(row[key]).toBeGreaterThan(0);
        expect(typeof row.pass).toBe("boolean");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("exits 1 when no benchmark matches and 2 on an unknown option", async () => {
    await expect(run(["--quick", "no-such-benchmark"])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining("no benchmark matches no-such-benchmark") });
    await expect(run(["--fast"])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("unknown option --fast") });
  });
});
