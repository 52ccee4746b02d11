/**
 * Finding the benchmarks: every `.ts` file in `src/benchmarks/` whose default
 * export is a {@link Benchmark}.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Benchmark } from "./bench-types.ts";

/** The directory benchmark files live in. */
export const benchmarksDir = fileURLToPath(new URL("./benchmarks/", import.meta.url));

/** A loaded benchmark and the file it came from. */
export type LoadedBenchmark = { file: string; benchmark: Benchmark };

function isBenchmark(value: unknown): value is Benchmark {
  if (typeof value !== "object" || value === null) return false;
  const v = value as { name?: unknown; run?: unknown };
  return typeof v.name === "string" && typeof v.run === "function";
}

/**
 * Loads every benchmark, sorted by file name. With `filters`, keeps those
 * whose name or file name contains one of them.
 */
export async function loadBenchmarks(filters: readonly string[] = []): Promise<LoadedBenchmark[]> {
  const files = readdirSync(benchmarksDir)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    .sort();
  const loaded: LoadedBenchmark[] = [];
  for (const file of files) {
    const base = path.basename(file, ".ts");
    const mod = (await import(pathToFileURL(path.join(benchmarksDir, file)).href)) as { default?: unknown };
    if (!isBenchmark(mod.default)) {
      throw new Error(`${file}: the default export must be { name: string, run(opts): Promise<BenchRow[]> }`);
    }
    const benchmark = mod.default;
    if (filters.length > 0 && !filters.some((f) => benchmark.name.includes(f) || base.includes(f))) continue;
    loaded.push({ file, benchmark });
  }
  return loaded;
}
