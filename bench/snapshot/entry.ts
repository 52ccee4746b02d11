/**
 * The snapshot prototype's entry (bundled to one CommonJS file by
 * bench/src/snapshot-prototype.ts, then run by `node --build-snapshot`):
 * loads what an interactive start loads up to its prompt (the CLI, its
 * commands, the main command, the interactive and print modes), and sets
 * the deserialized process's main function: the binary's own
 * (`apps/cli/src/kosong.ts` + `cli-main.ts`) without top-level await.
 * Left to run time (bundled, evaluated on first use): the model SDKs (they
 * touch `Headers`/`FormData` at load, which Node cannot snapshot) and the
 * Markdown renderer (chalk reads the colour environment at load).
 */
import { buildTimeReads } from "./build-time-reads.ts";
import v8 from "node:v8";
import { enableCompileCache } from "../../apps/cli/src/compile-cache.js";
import { runCli } from "../../apps/cli/src/run-cli.js";
import { startupMark } from "../../apps/cli/src/startup-marks.js";
import "../../apps/cli/src/run-main.js";
import "../../apps/cli/src/modes/interactive/run-interactive.js";
import "../../apps/cli/src/modes/print-mode.js";

declare const __kosongRuntime: { require: ((id: string) => unknown) | null };
declare const __filename: string;
/** A file in apps/cli (set by the build): the packages left out of the bundle resolve from there. */
declare const __KOSONG_RESOLVE_FROM__: string;

buildTimeReads.report();

v8.startupSnapshot.setDeserializeMainFunction(async () => {
  startupMark("entry");
  writeMarksAtExit();
  const { createRequire, isBuiltin } = process.getBuiltinModule("node:module");
  const fromCli = createRequire(__KOSONG_RESOLVE_FROM__);
  __kosongRuntime.require = (id) => (isBuiltin(id) ? process.getBuiltinModule(id) : fromCli(id));
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
  await enableCompileCache();
  // Started as `node --snapshot-blob BLOB BUNDLE args...`: argv is [node, BUNDLE, args...] (or, where Node puts its own path first, [node, node, BUNDLE, ...]).
  const at = process.argv.indexOf(__filename, 1);
  process.exitCode = await runCli(at < 0 ? process.argv : [process.execPath, ...process.argv.slice(at)]);
});

/** As bench/src/startup-marks-preload.mjs (a snapshot start runs no `--import`): the run's marks to `KOSONG_BENCH_MARKS` at exit. */
function writeMarksAtExit(): void {
  const file = process.env.KOSONG_BENCH_MARKS;
  if (!file) return;
  process.on("exit", () => {
    const { performance } = process.getBuiltinModule("node:perf_hooks");
    const marks: Record<string, number> = {};
    for (const entry of performance.getEntriesByType("mark")) if (entry.name.startsWith("kosong:")) marks[entry.name.slice("kosong:".length)] = performance.timeOrigin + entry.startTime;
    process.getBuiltinModule("node:fs").writeFileSync(file, JSON.stringify(marks));
  });
}
