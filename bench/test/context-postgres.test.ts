/**
 * The context-postgres benchmark in quick mode, on the test run's PostgreSQL
 * server (this file belongs to the vitest project that starts one).
 */
import { describe, expect, inject, it } from "vitest";
import { loadBenchmarks } from "../src/discover.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The test server's connection string (packages/kosong-context-postgres/test/helpers/global-setup.ts). */
    pgUrl: string;
  }
}

describe("the context-postgres benchmark", () => {
  it("runs in quick mode against the test server and reports finite positive timings", async () => {
    process.env.KOSONG_BENCH_PG_URL = inject("pgUrl");
    const [loaded] = await loadBenchmarks(["context-postgres"]);
    const rows = await loaded!.benchmark.run({ quick: true });
    expect(rows.map((row) => row.name)).toEqual([
      "2 processes x 5 sessions x 10 appends",
      "restore a 1,000-message session (1,667 records)",
      "restore a 10,010-message session with 10 compactions (rotations in the table)",
      "append latency (p50) with 100 sessions in the table",
    ]);
    for (const row of rows) {
      for (const value of [row.ours_ms, row.baseline_ms, row.ratio]) {
        expect(Number.isFinite(value)).toBe(true);
        expect(value).toBeGreaterThan(0);
      }
    }
  }, 120_000);
});
