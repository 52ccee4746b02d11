/**
 * Where a start's time goes, phase by phase, for `kosong -p` and for the
 * interactive `kosong`: the CLI marks the points it reaches
 * (`apps/cli/src/startup-marks.ts`), a preloaded module writes them out at
 * exit (`../startup-marks-preload.mjs`), and the bench lines them up with
 * its own clock: the spawn, the fake server's receipt of the first request,
 * the first byte of the answer (print mode) or the prompt on the screen
 * (interactive, in a pseudo-terminal; left out without util-linux `script`).
 *
 * The project is a small git repository with an AGENTS.md (the project
 * context runs `git` as it does for a user). Each round runs `node -e 0`,
 * a `kosong -p` and an interactive `kosong` (which gets `hi` and Enter the
 * moment its prompt shows), the order rotating; every phase is reported
 * against `node -e 0` of the same rounds (informational: the figures say
 * which phase to work on, and each later change is measured against them).
 * The main thread's CPU time up to the first request (print mode) and to
 * the prompt drawn (interactive) comes with them: the preload reads it at
 * each mark, and the other load of a shared machine blurs it less than the
 * wall time.
 *
 * With `KOSONG_BENCH_BASELINE_CLI` set to another build's `kosong.js` (e.g.
 * a copy of main's `dist` as `apps/cli/dist-main`), that build runs in the
 * same rounds too, and gets the same rows (prefixed `baseline`) and rows of
 * this build against it: spawn → first byte / prompt, and the CPU times.
 *
 * Phases: node's own start (spawn → the binary's first line), the CLI's
 * modules and arguments, config, provider set-up, the mode's modules, the
 * session file (chosen, opened, restored), project context and git, the
 * rest of the session (tools, extensions, MCP, hooks), then for `-p` the
 * turn up to the provider's call (SDK import included), the request to the
 * server, and the answer's first byte; for the interactive mode the prompt
 * drawn and Enter → the request.
 *
 * Needs the built CLI (`apps/cli/dist/kosong.js`); builds it when missing.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { startFakeProviderServer, type FakeProviderServer } from "@kosong/core/testing";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { ensureCliBuilt, hasScript, kosongBin, makeProject } from "../cli-process.ts";
import { median, rowFromSamples } from "../measure.ts";

const preload = fileURLToPath(new URL("../startup-marks-preload.mjs", import.meta.url));

/** Now, in ms since the epoch (the clock the child's marks are given in). */
const now = (): number => performance.timeOrigin + performance.now();

/** Times of one run: the bench's own points and the CLI's marks, all in ms since the epoch. */
type Times = Record<string, number>;

/** A phase: its name and the two points it lies between. */
type Phase = [name: string, from: string, to: string];

const sessionPhases: Phase[] = [
  ["node's start (spawn → the binary's first line)", "spawn", "entry"],
  ["CLI modules and arguments", "entry", "main"],
  ["config", "main", "config"],
  ["provider set-up", "config", "providers"],
  ["the mode's modules", "providers", "mode-loaded"],
  ["session file (chosen, opened, restored)", "mode-loaded", "session-file"],
  ["project context and git", "session-file", "project-context"],
  ["tools, extensions, MCP, hooks", "project-context", "session-open"],
];

const printPhases: Phase[] = [
  ...sessionPhases,
  ["the turn up to the provider's call (SDK import included)", "session-open", "first-request"],
  ["the request reaching the server", "first-request", "request"],
  ["the answer's first byte", "request", "first-byte"],
  ["total: spawn → first byte", "spawn", "first-byte"],
];

const interactivePhases: Phase[] = [
  ...sessionPhases,
  ["session open → prompt on the screen", "session-open", "prompt"],
  ["Enter (typed as the prompt shows) → the request at the server", "prompt", "request"],
  ["total: spawn → prompt on the screen", "spawn", "prompt"],
];

/** Records the time each request reaches `server`. */
function requestTimes(server: FakeProviderServer): number[] {
  const times: number[] = [];
  const push = server.requests.push.bind(server.requests);
  server.requests.push = (...items) => {
    times.push(now());
    return push(...items);
  };
  return times;
}

function readMarks(file: string): Times {
  const marks = JSON.parse(readFileSync(file, "utf8")) as Times;
  rmSync(file, { force: true });
  return marks;
}

/** `kosong -p hi`: the spawn, the first byte, the first request's arrival, and the marks. */
function printRun(bin: string, server: FakeProviderServer, arrivals: number[], env: NodeJS.ProcessEnv, cwd: string, marksFile: string): Promise<Times> {
  server.reset();
  arrivals.length = 0;
  server.enqueue({ message: { role: "assistant", content: [{ type: "text", text: "Hello there." }] } });
  return new Promise((resolve, reject) => {
    const spawned = now();
    const child = spawn(process.execPath, ["--import", preload, bin, "-p", "hi", "--model", "bench-model"], { env: { ...env, KOSONG_BENCH_MARKS: marksFile }, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let firstByte: number | null = null;
    let stderr = "";
    child.stdout.on("data", () => (firstByte ??= now()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0 || firstByte === null || arrivals.length === 0) return reject(new Error(`kosong -p exited ${code}: ${stderr}`));
      resolve({ ...readMarks(marksFile), spawn: spawned, request: arrivals[0]!, "first-byte": firstByte });
    });
  });
}

/** Interactive `kosong` in a pseudo-terminal: the spawn, the prompt on the screen, Enter → the request, and the marks. */
function interactiveRun(bin: string, server: FakeProviderServer, arrivals: number[], env: NodeJS.ProcessEnv, cwd: string, marksFile: string): Promise<Times> {
  server.reset();
  arrivals.length = 0;
  server.enqueue({ message: { role: "assistant", content: [{ type: "text", text: "Reply." }] } });
  const command = [process.execPath, "--import", preload, bin, "--model", "bench-model"].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(" ");
  return new Promise((resolve, reject) => {
    const spawned = now();
    const child = spawn("script", ["-qefc", `stty cols 100 rows 30; ${command}`, "/dev/null"], { env: { ...env, KOSONG_BENCH_MARKS: marksFile }, cwd, stdio: ["pipe", "pipe", "pipe"] });
    let screen = "";
    let prompt: number | null = null;
    let ended = false;
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.stdout.on("data", (chunk: Buffer) => {
      screen += chunk.toString();
      const status = screen.indexOf("compaction:");
      if (prompt === null && status >= 0 && screen.includes("› ", status)) {
        prompt = now();
        child.stdin.write("hi\r");
      } else if (prompt !== null && !ended && screen.includes("Reply.") && screen.lastIndexOf("› ") > screen.indexOf("Reply.")) {
        ended = true;
        child.stdin.end("\u0004\u0004");
      }
    });
    child.on("error", reject);
    child.on("close", () => {
      clearTimeout(timer);
      if (prompt === null || arrivals.length === 0) return reject(new Error(`interactive kosong never answered: ${JSON.stringify(screen.slice(-500))}`));
      resolve({ ...readMarks(marksFile), spawn: spawned, prompt, request: arrivals[0]! });
    });
  });
}

function nodeRun(): Promise<number> {
  return new Promise((resolve, reject) => {
    const spawned = now();
    const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
    child.on("error", reject);
    child.on("close", () => resolve(now() - spawned));
  });
}

function phaseRows(mode: string, phases: Phase[], runs: Times[], node: number[]): BenchRow[] {
  return phases.map(([name, from, to]) => {
    const samples = runs.map((times) => {
      const a = times[from];
      const b = times[to];
      if (a === undefined || b === undefined) throw new Error(`${mode}: no mark ${a === undefined ? from : to}`);
      return b - a;
    });
    return rowFromSamples(`${mode}: ${name}`, samples, "node -e 0 (spawn → exit)", node, { note: `informational: ${median(samples).toFixed(1)} ms` });
  });
}

/** The main thread's CPU time (ms) by the mark `mark`, as the preload read it. */
function cpuRow(name: string, runs: Times[], mark: string, node: number[]): BenchRow {
  const samples = runs.map((times) => {
    const cpu = times[`cpu:${mark}`];
    if (cpu === undefined) throw new Error(`${name}: no CPU time at the mark ${mark}`);
    return cpu;
  });
  return rowFromSamples(name, samples, "node -e 0 (spawn → exit)", node, { note: `informational: ${median(samples).toFixed(1)} ms` });
}

const benchmark: Benchmark = {
  name: "cli-startup-breakdown",
  async run({ quick }) {
    ensureCliBuilt();
    const rounds = quick ? 2 : 15;
    const work = mkdtempSync(path.join(tmpdir(), "kosong-bench-breakdown-"));
    const server = await startFakeProviderServer();
    const arrivals = requestTimes(server);
    const project = makeProject(work);
    const marksFile = path.join(work, "marks.json");
    const env = { PATH: process.env.PATH ?? "", HOME: work, KOSONG_HOME: path.join(work, ".kosong"), OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: `${server.url}/v1`, TERM: "xterm-256color" };
    const pty = hasScript();
    const baseline = process.env.KOSONG_BENCH_BASELINE_CLI;
    const builds = [kosongBin, ...(baseline ? [baseline] : [])];
    const node: number[] = [];
    const print: Times[][] = builds.map(() => []);
    const interactive: Times[][] = builds.map(() => []);
    try {
      // Untimed: the compile cache and the file system cache warm up.
      for (const bin of builds) {
        await printRun(bin, server, arrivals, env, project, marksFile);
        if (pty) await interactiveRun(bin, server, arrivals, env, project, marksFile);
      }
      const sides: Array<() => Promise<void>> = [
        async () => void node.push(await nodeRun()),
        ...builds.flatMap((bin, b) => [
          async () => void print[b]!.push(await printRun(bin, server, arrivals, env, project, marksFile)),
          ...(pty ? [async () => void interactive[b]!.push(await interactiveRun(bin, server, arrivals, env, project, marksFile))] : []),
        ]),
      ];
      for (let round = 0; round < rounds; round++) {
        for (let i = 0; i < sides.length; i++) await sides[(i + round) % sides.length]!();
      }
    } finally {
      await server.close();
      rmSync(work, { recursive: true, force: true, maxRetries: 5 });
    }
    const rowsOf = (b: number, prefix: string) => [
      ...phaseRows(`${prefix}kosong -p`, printPhases, print[b]!, node),
      cpuRow(`${prefix}kosong -p: main thread's CPU time, start → the first request`, print[b]!, "first-request", node),
      ...(pty ? [...phaseRows(`${prefix}kosong (interactive)`, interactivePhases, interactive[b]!, node), cpuRow(`${prefix}kosong (interactive): main thread's CPU time, start → the prompt drawn`, interactive[b]!, "prompt-drawn", node)] : []),
    ];
    const rows = rowsOf(0, "");
    if (baseline) {
      rows.push(...rowsOf(1, "baseline "));
      const against = (name: string, runs: Times[][], pick: (times: Times) => number) => rowFromSamples(`${name}, this build vs the baseline build`, runs[0]!.map(pick), "the baseline build (KOSONG_BENCH_BASELINE_CLI)", runs[1]!.map(pick), { note: "informational" });
      rows.push(
        against("kosong -p: spawn → first byte", print, (t) => t["first-byte"]! - t.spawn!),
        against("kosong -p: main thread's CPU time to the first request", print, (t) => t["cpu:first-request"]!),
        ...(pty
          ? [
              against("kosong (interactive): spawn → prompt on the screen", interactive, (t) => t.prompt! - t.spawn!),
              against("kosong (interactive): main thread's CPU time to the prompt drawn", interactive, (t) => t["cpu:prompt-drawn"]!),
            ]
          : []),
      );
    }
    return rows;
  },
};

export default benchmark;
