/**
 * Runs the benchmarks and prints a table of ratios against their baselines.
 *
 *   node src/run.ts [--quick] [--misses] [--out FILE] [name-filter ...]
 *
 * Every file in src/benchmarks/ is a benchmark; a filter keeps those whose
 * name or file name contains it. Results go to results/latest.json too (or
 * to FILE).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchRow } from "./bench-types.ts";
import { loadBenchmarks } from "./discover.ts";

type ResultRow = BenchRow & { benchmark: string; pass: boolean | null };

const usage = "usage: node src/run.ts [--quick] [--misses] [--out FILE] [name-filter ...]";

function parseArgs(argv: readonly string[]): { quick: boolean; misses: boolean; out: string; filters: string[] } {
  let quick = false;
  let misses = false;
  let out = fileURLToPath(new URL("../results/latest.json", import.meta.url));
  const filters: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") continue;
    if (arg === "--quick" || arg === "-q") quick = true;
    else if (arg === "--misses") misses = true;
    else if (arg === "--out" || arg.startsWith("--out=")) {
      const value = arg === "--out" ? argv[++i] : arg.slice("--out=".length);
      if (!value) {
        console.error(`--out needs a file\n${usage}`);
        process.exit(2);
      }
      out = path.resolve(value);
    } else if (arg === "--help" || arg === "-h") {
      console.log(usage);
      process.exit(0);
    } else if (arg.startsWith("-")) {
      console.error(`unknown option ${arg}\n${usage}`);
      process.exit(2);
    } else filters.push(arg);
  }
  return { quick, misses, out, filters };
}

function fmt(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3);
}

function printTable(rows: readonly ResultRow[]): void {
  const header = ["benchmark", "name", "ours ms", "baseline", "baseline ms", "ratio", "goal", "result"];
  const body = rows.map((r) => [
    r.benchmark,
    r.name,
    fmt(r.ours_ms),
    r.baseline,
    fmt(r.baseline_ms),
    r.ratio.toFixed(2),
    r.goal === undefined ? "" : `<= ${r.goal}`,
    r.pass === null ? "" : r.pass ? "pass" : "MISS",
  ]);
  const numeric = new Set([2, 4, 5]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of body) console.log(line(row));
  for (const r of rows) if (r.note) console.log(`  ${r.benchmark} / ${r.name}: ${r.note}`);
}

async function main(): Promise<void> {
  const { quick, misses, out, filters } = parseArgs(process.argv.slice(2));
  const benchmarks = await loadBenchmarks(filters);
  if (benchmarks.length === 0) {
    console.error(filters.length > 0 ? `no benchmark matches ${filters.join(", ")}` : "no benchmarks found");
    process.exit(1);
  }
  const rows: ResultRow[] = [];
  let failures = 0;
  for (const { file, benchmark } of benchmarks) {
    process.stderr.write(`running ${benchmark.name} (${file})${quick ? " [quick]" : ""}...\n`);
    try {
      for (const row of await benchmark.run({ quick, misses })) {
        rows.push({ benchmark: benchmark.name, ...row, pass: row.goal === undefined ? null : row.ratio <= row.goal });
      }
    } catch (error) {
      failures++;
      console.error(`${benchmark.name} failed:`, error);
    }
  }
  printTable(rows);
  mkdirSync(path.dirname(out), { recursive: true });
  const report = { date: new Date().toISOString(), node: process.version, quick, filters, rows };
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nwrote ${out}`);
  if (failures > 0) process.exit(1);
}

await main();
