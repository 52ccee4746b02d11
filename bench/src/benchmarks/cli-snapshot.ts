/**
 * Would a V8 start-up snapshot make `kosong` start faster (issue 33)? The
 * snapshot prototype (`../snapshot-prototype.ts`: the CLI and what an
 * interactive start loads up to its prompt, in one CommonJS file, evaluated
 * while the snapshot builds) against the product's build
 * (`apps/cli/dist/kosong.js`, an ES module bundle with lazy chunks and
 * Node's compile cache), alternating in the same rounds, with a bare
 * `node -e` (one byte to stdout) in each round:
 *
 * - interactive spawn → the ready prompt on the screen (status line and
 *   `› `), in a pseudo-terminal (util-linux `script`; left out without it),
 *   and then the main thread's and all threads' CPU time and the RSS (from
 *   `/proc`, left out without it; MB in the ms columns);
 * - `kosong -p` spawn → the answer's first byte from the fake server;
 * - `kosong --version`.
 *
 * The snapshot starts as `node --snapshot-blob BLOB BUNDLE args` (no
 * launcher in front: the best case) and through the launcher a user would
 * need (`bench/snapshot/launcher.sh`: picks the blob this Node built for
 * this bundle, else the ordinary bundle). Every side runs with a compile
 * cache warmed by the warm-up rounds. The notes give the bare `node -e`'s
 * median of the same rounds and the blob's size and build time.
 */
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { startFakeProviderServer } from "@kosong/core/testing";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { commandPid, ensureCliBuilt, hasScript, kosongBin, repoRoot } from "../cli-process.ts";
import { median, rowFromSamples } from "../measure.ts";
import { buildSnapshotPrototype } from "../snapshot-prototype.ts";

/** A start's figures: ms from the spawn to the point measured, and then the RSS (MB), the main thread's and all threads' CPU time (ms); NaN when not read. */
interface Start {
  ms: number;
  rssMb: number;
  cpuMs: number;
  processCpuMs: number;
}

const unread = { rssMb: Number.NaN, cpuMs: Number.NaN, processCpuMs: Number.NaN };

/** Clock ticks per second of `/proc/PID/stat`'s CPU times (100 where getconf cannot say). */
function clockTicks(): number {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
}
const ticksPerSecond = clockTicks();

/**
 * Process `pid`'s resident set (MB), its main thread's time on a CPU (ms, from `/proc/PID/schedstat`, which other
 * processes' load does not blur) and all its threads' (`/proc/PID/stat`, in clock ticks); NaN when not read.
 */
function usage(pid: number | null): Omit<Start, "ms"> {
  try {
    if (pid === null) return unread;
    const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    const cpuNs = Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [utime, stime] = stat.slice(stat.lastIndexOf(")") + 2).split(" ").slice(11, 13).map(Number);
    return { rssMb: rss ? Number(rss[1]) / 1024 : Number.NaN, cpuMs: cpuNs / 1e6, processCpuMs: ((utime! + stime!) * 1000) / ticksPerSecond };
  } catch {
    return unread;
  }
}

/** Runs `command` in a pseudo-terminal until kosong's ready prompt shows (its status line, then `› `); ends it with Ctrl-D. */
function untilPrompt(argv: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Start> {
  const command = argv.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(" ");
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn("script", ["-qefc", `stty cols 100 rows 30; exec ${command}`, "/dev/null"], { env, cwd, stdio: ["pipe", "pipe", "ignore"] });
    let screen = "";
    let result: Start | null = null;
    child.stdout.on("data", (chunk: Buffer) => {
      screen += chunk.toString();
      const status = screen.indexOf("compaction:");
      if (result !== null || status < 0 || !screen.includes("› ", status)) return;
      const ms = performance.now() - start;
      result = { ms, ...usage(commandPid(child.pid!)) };
      child.stdin.end("\u0004");
    });
    child.on("error", reject);
    child.on("close", (code) => (result ? resolve(result) : reject(new Error(`no prompt (exit ${code}): ${JSON.stringify(screen.slice(-400))}`))));
  });
}

/** Runs `command` to its end; resolves with the time of its first byte on stdout. */
function untilFirstByte([file, ...args]: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Start> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(file!, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let first: number | null = null;
    let stderr = "";
    child.stdout.on("data", () => (first ??= performance.now() - start));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 && first !== null ? resolve({ ms: first, ...unread }) : reject(new Error(`${file} ${args.join(" ")} exited ${code}: ${stderr.slice(-600)}`))));
  });
}

/** The sides of a round. */
type Side = "build" | "snapshot" | "launcher" | "node";

/** Runs `rounds` rounds of `run` on each side, rotating the order; returns each side's samples. */
async function rotate(rounds: number, run: (side: Side) => Promise<Start>): Promise<Record<Side, Start[]>> {
  const samples: Record<Side, Start[]> = { build: [], snapshot: [], launcher: [], node: [] };
  const order: Side[] = ["build", "snapshot", "launcher", "node"];
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < order.length; i++) {
      const side = order[(round + i) % order.length]!;
      samples[side].push(await run(side));
    }
  }
  return samples;
}

const ms = (starts: Start[]) => starts.map((start) => start.ms);

const benchmark: Benchmark = {
  name: "cli-snapshot",
  async run({ quick }) {
    ensureCliBuilt();
    const rounds = quick ? 1 : 15;
    const warmup = quick ? 0 : 3;
    const work = mkdtempSync(path.join(tmpdir(), "kosong-bench-snapshot-"));
    const server = await startFakeProviderServer();
    try {
      const snapshot = await buildSnapshotPrototype(work, { minify: true });
      const launcher = path.join(repoRoot, "bench", "snapshot", "launcher.sh");
      const blobs = path.join(work, "blobs");
      // The launcher's PATH finds this Node first: the blob is this Node's, as kosong.blob.node says.
      const launcherEnv = { KOSONG_SNAPSHOT_DIR: blobs, KOSONG_SNAPSHOT_BUNDLE: snapshot.bundle, KOSONG_BUNDLE: kosongBin };
      const base = { PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ""}`, HOME: work, KOSONG_HOME: path.join(work, ".kosong"), OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: `${server.url}/v1`, ...launcherEnv };
      mkdirSync(blobs);
      copyFileSync(snapshot.blob, path.join(blobs, "kosong.blob"));
      writeFileSync(path.join(blobs, "kosong.blob.node"), `${process.execPath}\n${hostname()}\n`);
      const start = (side: Side, args: string[]): string[] => {
        if (side === "launcher") return ["sh", launcher, ...args];
        if (side === "snapshot") return [process.execPath, "--snapshot-blob", snapshot.blob, snapshot.bundle, ...args];
        return [process.execPath, kosongBin, ...args];
      };
      const built = `blob ${(snapshot.blobBytes / 1e6).toFixed(1)} MB, bundle ${(snapshot.bundleBytes / 1e6).toFixed(1)} MB, built in ${snapshot.buildMs.toFixed(0)} ms`;
      const rows: BenchRow[] = [];
      const nodeNote = (samples: Record<Side, Start[]>) => `node -e (a byte to stdout) ${median(ms(samples.node)).toFixed(0)} ms in the same rounds; ${built}`;

      const reply = { message: { role: "assistant" as const, content: [{ type: "text" as const, text: "Hello there." }] } };
      const printEnv = { ...base, NO_COLOR: "1" };
      const print = (side: Side) => {
        server.enqueue(reply);
        return untilFirstByte(start(side, ["-p", "hi", "--model", "bench-model"]), printEnv, work);
      };
      const version = (side: Side) => untilFirstByte(start(side, ["--version"]), base, work);
      const node = () => untilFirstByte([process.execPath, "-e", "process.stdout.write('.')"], base, work);

      if (hasScript()) {
        const env = { ...base, TERM: "xterm-256color" };
        const ready = (side: Side) => (side === "node" ? node() : untilPrompt(start(side, ["--model", "bench-model"]), env, work));
        for (let i = 0; i < warmup; i++) for (const side of ["build", "snapshot", "launcher"] as const) await ready(side);
        const samples = await rotate(rounds, ready);
        rows.push(rowFromSamples("interactive spawn → ready prompt: snapshot", ms(samples.snapshot), "the product's build (ESM chunks + compile cache)", ms(samples.build), { note: nodeNote(samples) }));
        rows.push(rowFromSamples("interactive spawn → ready prompt: snapshot through the launcher", ms(samples.launcher), "the product's build", ms(samples.build), { note: nodeNote(samples) }));
        // Read from /proc: left out where there is none.
        const measured = (["build", "snapshot", "launcher"] as const).every((side) => samples[side].every((s) => Number.isFinite(s.cpuMs) && Number.isFinite(s.rssMb) && Number.isFinite(s.processCpuMs)));
        if (measured) {
          const of = (side: Side, figure: "cpuMs" | "processCpuMs" | "rssMb") => samples[side].map((s) => s[figure]);
          const without = (figure: "cpuMs" | "processCpuMs") => `the snapshot without the launcher ${median(of("snapshot", figure)).toFixed(0)} ms`;
          rows.push(rowFromSamples("main thread's CPU time to the ready prompt: snapshot through the launcher", of("launcher", "cpuMs"), "the product's build", of("build", "cpuMs"), { note: without("cpuMs") }));
          rows.push(rowFromSamples("all threads' CPU time to the ready prompt: snapshot through the launcher", of("launcher", "processCpuMs"), "the product's build", of("build", "processCpuMs"), { note: without("processCpuMs") }));
          const rss = (side: Side) => median(of(side, "rssMb")).toFixed(1);
          rows.push(
            rowFromSamples("RSS at the ready prompt in MB (not ms): snapshot", of("snapshot", "rssMb"), "the product's build (MB)", of("build", "rssMb"), {
              note: `${rss("snapshot")} MB (through the launcher ${rss("launcher")} MB) against ${rss("build")} MB`,
            }),
          );
        }
      }
      for (let i = 0; i < warmup; i++) for (const side of ["build", "snapshot", "launcher"] as const) await print(side);
      const printSamples = await rotate(rounds, (side) => (side === "node" ? node() : print(side)));
      rows.push(rowFromSamples("kosong -p spawn → first byte: snapshot", ms(printSamples.snapshot), "the product's build", ms(printSamples.build), { note: nodeNote(printSamples) }));
      rows.push(rowFromSamples("kosong -p spawn → first byte: snapshot through the launcher", ms(printSamples.launcher), "the product's build", ms(printSamples.build), { note: nodeNote(printSamples) }));
      const versionSamples = await rotate(rounds, (side) => (side === "node" ? node() : version(side)));
      rows.push(rowFromSamples("kosong --version: snapshot", ms(versionSamples.snapshot), "the product's build", ms(versionSamples.build), { note: nodeNote(versionSamples) }));
      rows.push(rowFromSamples("kosong --version: snapshot through the launcher", ms(versionSamples.launcher), "the product's build", ms(versionSamples.build), { note: nodeNote(versionSamples) }));
      return rows;
    } finally {
      await server.close();
      rmSync(work, { recursive: true, force: true, maxRetries: 5 });
    }
  },
};

export default benchmark;
