/**
 * Preloaded into a `kosong` run by the start-up breakdown (`node --import`):
 * at the process's exit, writes the run's `kosong:*` performance marks as
 * absolute times (ms since the epoch, from `performance.timeOrigin`) to the
 * file named by `KOSONG_BENCH_MARKS`, so the bench can line them up with
 * its own clock (spawn, the server's request, the first byte). With each
 * mark it also writes the main thread's CPU time by then (`cpu:<name>`, ms
 * of user + system time), which the machine's other load blurs less than
 * the wall time.
 */
import { writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

const file = process.env.KOSONG_BENCH_MARKS;
if (file) {
  const cpu = {};
  const threadCpu = process.threadCpuUsage ?? process.cpuUsage;
  const mark = performance.mark.bind(performance);
  performance.mark = (name, options) => {
    if (name.startsWith("kosong:")) {
      const { user, system } = threadCpu();
      cpu[`cpu:${name.slice("kosong:".length)}`] ??= (user + system) / 1000;
    }
    return mark(name, options);
  };
  process.on("exit", () => {
    const marks = { ...cpu };
    for (const entry of performance.getEntriesByType("mark")) {
      if (entry.name.startsWith("kosong:")) marks[entry.name.slice("kosong:".length)] = performance.timeOrigin + entry.startTime;
    }
    writeFileSync(file, JSON.stringify(marks));
  });
}
