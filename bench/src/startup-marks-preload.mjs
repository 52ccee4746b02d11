/**
 * Preloaded into a `kosong` run by the start-up breakdown (`node --import`):
 * at the process's exit, writes the run's `kosong:*` performance marks as
 * absolute times (ms since the epoch, from `performance.timeOrigin`) to the
 * file named by `KOSONG_BENCH_MARKS`, so the bench can line them up with
 * its own clock (spawn, the server's request, the first byte).
 */
import { writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

const file = process.env.KOSONG_BENCH_MARKS;
if (file) {
  process.on("exit", () => {
    const marks = {};
    for (const entry of performance.getEntriesByType("mark")) {
      if (entry.name.startsWith("kosong:")) marks[entry.name.slice("kosong:".length)] = performance.timeOrigin + entry.startTime;
    }
    writeFileSync(file, JSON.stringify(marks));
  });
}
