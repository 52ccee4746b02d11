/**
 * kosong beside Codex CLI (a native binary) on the same one-shot turn from
 * the same fake server (offline, real HTTP: kosong through the openai SDK's
 * Chat Completions, Codex through its Responses client), alternating in the
 * same rounds: the first byte of the answer on stdout, the exit, the peak
 * RSS (GNU time's maximum resident set size, in MB: the row's "ms" columns
 * hold MB), and `--version` (also against `node -e 0`).
 *
 * Codex is not a dependency: set `KOSONG_BENCH_CODEX` to its binary, or
 * have `codex` on the PATH (`../codex-cli.ts`); without it the benchmark
 * reports nothing. Codex runs with a config of its own (a `fake` provider
 * whose base URL is the fake server, `wire_api = "responses"`, the key in
 * `FAKE_API_KEY`) in a folder under the home (Codex refuses its helpers
 * under /tmp). Codex's `exec` prints its answer when the message is
 * complete; on this one-line answer that is its first byte.
 *
 * Issue 33's turn (`../scripted-tool-turn.ts`) runs in the same rounds for
 * kosong, Codex and the baseline build: the model first calls the agent's
 * own shell tool (kosong's `Shell` `{ command }`, Codex 0.171's
 * `exec_command` `{ cmd }`, from the `tools` of its request) on `echo`, then
 * streams a ~2,000-token answer in 2,000 deltas, written frame by frame.
 * Both run the command unasked in their sandbox: kosong with `--sandbox
 * auto-allow` (bubblewrap), Codex with `exec --sandbox workspace-write`
 * (exec never asks). A round fails loudly unless the second request
 * carried the command's real output (`$((6*7))` expanded by a shell) and
 * the agent printed the whole answer. Its rows: the first answer byte on
 * stdout (both agents print a response's text once it is complete, so this
 * is the end of the stream's handling), the exit, the CPU time and the
 * peak RSS (GNU time's: the largest process, not the sum of a tree), of
 * kosong against Codex and against the baseline build, and the baseline
 * build's first byte against Codex.
 *
 * Interactive: each agent in a pseudo-terminal (util-linux `script`) whose
 * output goes to a headless xterm.js (`../agent-terminal.ts`), which
 * answers the terminal's queries (cursor position, colours, modes: Codex's
 * TUI waits for those answers, a bare pty gives none) — spawn → the ready
 * prompt on the screen (kosong's status line and `› `, Codex's `›`
 * composer, which shows some 500 ms before Codex's session is ready: see
 * `cli-first-turn.ts`), the CPU time the agent's
 * process spent by then (all its threads, from `/proc/PID/task/*\/schedstat`:
 * less blurred than the wall time by the other load of a shared machine),
 * the RSS of the agent's process then and while the prompt waits, 1 s and
 * 3 s later (0.25 s and 0.5 s in a quick run; `/proc`, MB in the ms columns;
 * kosong loads its SDK while the prompt waits, and Codex's TUI keeps
 * starting after its composer shows: what an idle prompt holds is the
 * whole curve, not one instant), and 3 s later the RSS of everything
 * the agent runs: its process, its children, and the processes it left
 * running on their own (Codex starts an app-server daemon from a copy of
 * itself under CODEX_HOME, which outlives the TUI; the bench stops those at
 * its end).
 *
 * Readiness as a user meets it, in the same rounds (kosong, Codex and the
 * baseline build; `../first-turn-session.ts`): the prompt and the composer
 * show at different instants of the two agents' start (Codex's composer
 * shows some 500 ms before its session can take a turn: an Enter typed then
 * waits, "Waiting for startup", and Codex hands the turn to its app-server
 * daemon; kosong's prompt takes it at once), so the rows above compare
 * unlike instants. Here each agent, in a fresh session, gets `h`, `i` and
 * Enter typed the moment its prompt or composer shows (each key once the
 * last is drawn; the terminal answers the kitty keyboard query, without
 * which Codex does not submit), and the rows give spawn → the request
 * carrying `hi` reaching the fake server, and the RSS of all the agent's
 * processes (its own, its descendants, and the processes running from its
 * home: Codex's daemon, two processes of a copy of its binary, started by
 * the warm-up and serving every later session, as for a user) summed when
 * that request reaches the server (the reply is held, its headers sent,
 * until they are read: the agent waits as it was when it sent it) and when
 * the reply is drawn, each agent against Codex (and against the baseline
 * build). The notes give the medians of prompt, Enter and request from the
 * spawn, the first turns whose Enter waited for Codex's start-up, the
 * range of the summed RSS over the run (the daemon grows a few MB with each
 * session it serves), its anonymous part (the summed RSS counts a binary's
 * pages once per process that maps it), and the agent's own process's RSS
 * at the same instant (the row "RSS at the ready prompt" reads the process
 * alone, at the prompt). A session whose Enter the agent dropped (no
 * request within 15 s) is run again once and counted in the note.
 *
 * With `KOSONG_BENCH_BASELINE_CLI` set to another build's `kosong.js` (e.g.
 * a copy of main's `dist` as `apps/cli/dist-main`), that build's one-shot
 * turn and interactive start alternate with the two in the same rounds and
 * get rows of their own (this build against it, and it against Codex), and
 * so does its `--version` (this build against it, and it against
 * `node -p 0`). The one-shot rows also give the CPU time (user + system,
 * GNU time's, to 10 ms).
 *
 * The floor (`../sdk-floor.ts`: node, the `openai` SDK and Node's fetch
 * streaming the same turn, bundled, nothing of an agent) runs in the same
 * rounds too, with rows of kosong and Codex against it: what a Node agent
 * cannot go below, and kosong's own share above it. The floors of an idle
 * prompt's RSS run in the same rounds, read at the same instants after each
 * says it is ready: bare `node`, `node` after one request with Node's fetch
 * (to a closed port: undici loaded and run), and the floor program's idle
 * twin, which streams the same turn and then waits (`../sdk-floor.ts`).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { startFakeProviderServer, type FakeProviderServer } from "@kosong/core/testing";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { startInTerminal } from "../agent-terminal.ts";
import { ensureCliBuilt, hasScript, kosongBin, makeProject } from "../cli-process.ts";
import { codexBinary, codexComposerShown, codexEnv as codexEnvFor, writeCodexConfig } from "../codex-cli.ts";
import { median, rotatingRounds, rowFromSamples } from "../measure.ts";
import { buildSdkFloor } from "../sdk-floor.ts";
import { assertToolTurn, type ShellDialect, toolTurnResponses } from "../scripted-tool-turn.ts";
import { cpuMs, processesUnder, rssMb, stopProcessesUnder, withDescendants } from "../process-tree.ts";
import { againOnDroppedEnter, codexReady, codexStartingUp, type FirstTurnAgent, type FirstTurnMemory, firstTurn, kosongReady as kosongReadyForTurn, type TurnMemory, type TurnTimes } from "../first-turn-session.ts";

const hasGnuTime = existsSync("/usr/bin/time");

interface Run {
  firstByte: number;
  exit: number;
  /** Peak RSS in MB (NaN without GNU time). */
  rssMb: number;
  /** CPU time, user + system, in ms (GNU time's, to 10 ms; NaN without it). */
  cpuMs: number;
}

/** Runs `command args` (under GNU time when there) to its end: the first stdout byte, the exit, the peak RSS, and what it printed. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Run & { stdout: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const [file, argv] = hasGnuTime ? ["/usr/bin/time", ["-f", "maxrss %M cpu %U %S", command, ...args]] : [command, args];
    const child = spawn(file, argv, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let firstByte: number | null = null;
    let stderr = "";
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      firstByte ??= performance.now() - start;
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const exit = performance.now() - start;
      const rss = /maxrss (\d+)/.exec(stderr);
      const cpu = /cpu ([\d.]+) ([\d.]+)/.exec(stderr);
      if (code !== 0 || firstByte === null) return reject(new Error(`${command} ${args.join(" ")} exited ${code}: ${stderr.slice(-600)}`));
      resolve({ stdout, firstByte, exit, rssMb: rss ? Number(rss[1]) / 1024 : Number.NaN, cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : Number.NaN });
    });
  });
}

interface Ready {
  ms: number;
  /** CPU time of the agent's process by then, all threads, in ms. */
  cpuMs: number;
  rssMb: number;
  /** The process's RSS at each of {@link laterMs} after the prompt showed. */
  laterRssMb: number[];
  /** At the last of them: the process, its children and the processes it left running under the agent's folder. */
  treeRssMb: number;
}

/** The figures of {@link Ready} that are one number. */
type ScalarOfReady = Exclude<keyof Ready, "laterRssMb">;

/** When after the prompt the later RSS is read, in ms (a quick run waits less). */
const laterMs = (quick: boolean): number[] => (quick ? [250, 500] : [1_000, 3_000]);

/** Reads `pid`'s RSS at each of `after` ms from now; resolves with them. */
async function rssOverTime(pid: number, after: readonly number[]): Promise<number[]> {
  const start = performance.now();
  const samples: number[] = [];
  for (const at of after) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - (performance.now() - start))));
    samples.push(rssMb(pid));
  }
  return samples;
}

/**
 * Runs `command args` in a pseudo-terminal read by a headless xterm.js (`../agent-terminal.ts`) until `isReady(screen)`;
 * returns the time from the spawn, the CPU time and RSS then, the RSS at each of `later` ms after (the process's, and at
 * the last with its children and the processes left under `folder`), and ends it.
 */
async function readyInTerminal(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, folder: string, isReady: (screen: string) => boolean, later: readonly number[]): Promise<Ready> {
  const terminal = startInTerminal(command, args, { env, cwd });
  try {
    const at = await terminal.until(() => isReady(terminal.screen()), `${command}'s prompt`);
    const pid = terminal.pid();
    if (pid === null) throw new Error(`${command} showed its prompt but is not running`);
    const atPrompt = { ms: at - terminal.startedAt, cpuMs: cpuMs(pid), rssMb: rssMb(pid) };
    const laterRssMb = await rssOverTime(pid, later);
    const tree = new Set([...withDescendants(pid), ...processesUnder(folder)]);
    return { ...atPrompt, laterRssMb, treeRssMb: [...tree].reduce((sum, p) => sum + rssMb(p), 0) };
  } finally {
    await terminal.stop();
  }
}

/**
 * Runs the floor program `command args` (no terminal) until it writes its first line (`ready`); returns the time to it, the
 * CPU time and RSS then and at each of `later` ms after, and ends it.
 */
function idleFloor(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, later: readonly number[]): Promise<Ready> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command, args, { env, cwd, stdio: ["ignore", "pipe", "inherit"] });
    let result: Ready | null = null;
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.stdout.once("data", () => {
      const pid = child.pid!;
      const atReady = { ms: performance.now() - start, cpuMs: cpuMs(pid), rssMb: rssMb(pid) };
      void rssOverTime(pid, later).then((laterRssMb) => {
        result = { ...atReady, laterRssMb, treeRssMb: laterRssMb.at(-1)! };
        child.kill("SIGTERM");
      });
    });
    child.on("error", reject);
    child.on("close", () => {
      clearTimeout(timer);
      if (result === null) return reject(new Error(`${command} ${args.join(" ")} ended (or stalled) before it was ready`));
      resolve(result);
    });
  });
}

/** A first turn typed the moment the prompt shows (`../first-turn-session.ts`), and whether its session was run again after a dropped Enter. */
interface TypedFirstTurn {
  turn: TurnTimes;
  memory: FirstTurnMemory;
  waitedForStartup: boolean;
  retried: boolean;
}

/** Spawn → the request carrying the typed text reaching the server, in ms. */
const startToRequest = (turn: TurnTimes): number => turn.enterAfterStart + turn.request;

/** kosong's prompt: after its status line, the `› ` input line. */
const kosongReady = (screen: string) => {
  const status = screen.indexOf("compaction:");
  return status >= 0 && screen.includes("› ", status);
};


const reply = { message: { role: "assistant" as const, content: [{ type: "text" as const, text: "Hello there." }] } };

function oneShot(server: FakeProviderServer, command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Run> {
  server.reset();
  server.enqueue(reply);
  return run(command, args, env, cwd);
}

/** Issue 33's turn (a shell tool call, then a ~2,000-token streamed answer); throws unless the agent ran the tool and printed the answer. */
async function toolTurn(server: FakeProviderServer, dialect: ShellDialect, command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Run> {
  server.reset();
  server.enqueue(...toolTurnResponses(dialect));
  const result = await run(command, args, env, cwd);
  assertToolTurn(`${path.basename(command)} ${args.slice(0, 2).join(" ")}`, server.requests, result.stdout);
  return result;
}

const benchmark: Benchmark = {
  name: "codex-side-by-side",
  available: () => codexBinary() !== null,
  async run({ quick }) {
    const codex = codexBinary();
    if (codex === null) return [];
    ensureCliBuilt();
    const rounds = quick ? 2 : 11;
    // Under the home, not /tmp: Codex will not put its helpers in a temporary folder.
    const work = mkdtempSync(path.join(os.homedir(), ".kosong-bench-codex-"));
    const server = await startFakeProviderServer();
    try {
      // Both agents start in a small git project with an AGENTS.md, where users start them (git runs at both starts).
      const project = makeProject(work);
      const codexHome = path.join(work, ".codex");
      writeCodexConfig(codexHome, server.url, project);
      const base = { PATH: process.env.PATH ?? "", HOME: work };
      const kosongEnv = { ...base, KOSONG_HOME: path.join(work, ".kosong"), OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: `${server.url}/v1`, NO_COLOR: "1" };
      const codexEnv = codexEnvFor(work, codexHome);
      const kosongArgs = [kosongBin, "-p", "hi", "--model", "bench-model"];
      const codexArgs = ["exec", "--skip-git-repo-check", "hi"];
      // The tool turn: each agent runs the shell command without asking, in its sandbox (kosong's bubblewrap, Codex's workspace-write).
      const toolPrompt = "Run echo, then answer.";
      const kosongToolArgs = (bin: string) => [bin, "-p", toolPrompt, "--model", "bench-model", "--sandbox", "auto-allow"];
      const codexToolArgs = ["exec", "--skip-git-repo-check", "--sandbox", "workspace-write", toolPrompt];
      const floorBin = await buildSdkFloor(work);
      const idleFloorBin = await buildSdkFloor(work, "idle");
      const baselineBin = process.env.KOSONG_BENCH_BASELINE_CLI;
      const sides: Record<string, () => Promise<Run>> = {
        kosong: () => oneShot(server, process.execPath, kosongArgs, kosongEnv, project),
        codex: () => oneShot(server, codex, codexArgs, codexEnv, project),
        floor: () => oneShot(server, process.execPath, [floorBin], kosongEnv, project),
        kosongVersion: () => run(process.execPath, [kosongBin, "--version"], kosongEnv, project),
        codexVersion: () => run(codex, ["--version"], codexEnv, project),
        node: () => run(process.execPath, ["-p", "0"], base, project),
        kosongTool: () => toolTurn(server, "kosong", process.execPath, kosongToolArgs(kosongBin), kosongEnv, project),
        codexTool: () => toolTurn(server, "codex", codex, codexToolArgs, codexEnv, project),
      };
      if (baselineBin) sides.baseline = () => oneShot(server, process.execPath, [baselineBin, ...kosongArgs.slice(1)], kosongEnv, project);
      if (baselineBin) sides.baselineTool = () => toolTurn(server, "kosong", process.execPath, kosongToolArgs(baselineBin), kosongEnv, project);
      if (baselineBin) sides.baselineVersion = () => run(process.execPath, [baselineBin, "--version"], kosongEnv, project);
      const terminal = hasScript();
      const ready: Record<string, Ready[]> = { kosong: [], codex: [], baseline: [], floorNode: [], floorFetch: [], floorSdk: [] };
      const firstTurns: Record<string, TypedFirstTurn[]> = { kosong: [], codex: [], baseline: [] };
      /** The floors of an idle prompt's RSS: bare node, node after a request with Node's fetch, node after a turn through the SDK. */
      const floors = { floorNode: "bare node", floorFetch: "node + Node's fetch (one refused request)", floorSdk: "node + the openai SDK (bundled) after one streamed turn" };
      const waitIdle = 'process.stdout.write("ready\\n"); setInterval(() => undefined, 60_000);';
      const floorArgs = { floorNode: ["-e", waitIdle], floorFetch: ["-e", `fetch("http://127.0.0.1:9/").catch(() => { ${waitIdle} });`], floorSdk: [idleFloorBin] };
      if (terminal) {
        const term = { TERM: "xterm-256color" };
        const interactive = (name: string, start: () => Promise<Ready>) => async () => {
          ready[name]!.push(await start());
          return { firstByte: 0, exit: 0, rssMb: 0, cpuMs: 0 };
        };
        const kosongHome = kosongEnv.KOSONG_HOME;
        const later = laterMs(quick);
        sides.kosongReady = interactive("kosong", () => readyInTerminal(process.execPath, [kosongBin, "--model", "bench-model"], { ...kosongEnv, ...term }, project, kosongHome, kosongReady, later));
        sides.codexReady = interactive("codex", () => readyInTerminal(codex, [], { ...codexEnv, ...term }, project, codexHome, codexComposerShown, later));
        if (baselineBin) sides.baselineReady = interactive("baseline", () => readyInTerminal(process.execPath, [baselineBin, "--model", "bench-model"], { ...kosongEnv, ...term }, project, kosongHome, kosongReady, later));
        for (const floor of Object.keys(floors) as (keyof typeof floors)[]) sides[floor] = interactive(floor, () => {
            server.reset();
            server.enqueue(reply);
            return idleFloor(process.execPath, floorArgs[floor], kosongEnv, project, later);
          });
        // Readiness as a user meets it: `hi` and Enter typed the moment the prompt shows, until the request reaches the server.
        const typed = (name: string, agent: FirstTurnAgent) => async () => {
          let retried = false;
          const session = () => firstTurn(agent, server, { pauseMs: 0, memory: true });
          const { turn, memory, waitedForStartup } = await againOnDroppedEnter(session, () => (retried = true));
          firstTurns[name]!.push({ turn, memory: memory!, waitedForStartup, retried });
          return { firstByte: 0, exit: 0, rssMb: 0, cpuMs: 0 };
        };
        const kosongAgent = (bin: string): FirstTurnAgent => ({ command: process.execPath, args: [bin, "--model", "bench-model"], env: { ...kosongEnv, ...term }, cwd: project, home: kosongHome, ready: kosongReadyForTurn });
        sides.kosongFirstTurn = typed("kosong", kosongAgent(kosongBin));
        sides.codexFirstTurn = typed("codex", { command: codex, args: [], env: { ...codexEnv, ...term }, cwd: project, home: codexHome, ready: codexReady, startingUp: codexStartingUp });
        if (baselineBin) sides.baselineFirstTurn = typed("baseline", kosongAgent(baselineBin));
      }
      // Untimed: caches warm up.
      for (const side of Object.values(sides)) await side();
      for (const samples of [...Object.values(ready), ...Object.values(firstTurns)]) samples.length = 0;
      const runs = await rotatingRounds(rounds, sides);
      const of = (name: string, key: keyof Run) => runs[name]!.map((r) => r[key]);
      const rows: BenchRow[] = [
        rowFromSamples("one-shot: first answer byte, kosong -p vs codex exec (fake server)", of("kosong", "firstByte"), "Codex CLI, the same turn", of("codex", "firstByte"), { goal: 0.9 }),
        rowFromSamples("one-shot: exit, kosong -p vs codex exec", of("kosong", "exit"), "Codex CLI, the same turn", of("codex", "exit"), { note: "informational" }),
        ...(hasGnuTime ? [rowFromSamples("one-shot: CPU time (user + system), kosong -p vs codex exec", of("kosong", "cpuMs"), "Codex CLI, the same turn", of("codex", "cpuMs"), { note: "informational" })] : []),
        ...(baselineBin
          ? [
              rowFromSamples("one-shot: first answer byte, kosong -p vs the baseline build", of("kosong", "firstByte"), "the baseline build, the same turn", of("baseline", "firstByte"), { note: "informational" }),
              rowFromSamples("one-shot: first answer byte, the baseline build vs codex exec", of("baseline", "firstByte"), "Codex CLI, the same turn", of("codex", "firstByte"), { goal: 0.9 }),
              ...(hasGnuTime ? [rowFromSamples("one-shot: CPU time (user + system), kosong -p vs the baseline build", of("kosong", "cpuMs"), "the baseline build, the same turn", of("baseline", "cpuMs"), { note: "informational" })] : []),
            ]
          : []),
        rowFromSamples("one-shot: first answer byte, the floor (node + the openai SDK + fetch, no agent) vs codex exec", of("floor", "firstByte"), "Codex CLI, the same turn", of("codex", "firstByte"), { note: "informational" }),
        rowFromSamples("one-shot: first answer byte, kosong -p vs the floor (node + the openai SDK + fetch)", of("kosong", "firstByte"), "the floor, the same turn", of("floor", "firstByte"), { note: "informational" }),
        ...(hasGnuTime ? [rowFromSamples("one-shot: CPU time (user + system), kosong -p vs the floor", of("kosong", "cpuMs"), "the floor, the same turn", of("floor", "cpuMs"), { note: "informational" })] : []),
        ...toolTurnRows(of, "kosongTool", "kosong -p", "codexTool", "codex exec", true),
        ...(baselineBin ? [...toolTurnRows(of, "kosongTool", "kosong -p", "baselineTool", "the baseline build", false), ...toolTurnRows(of, "baselineTool", "the baseline build", "codexTool", "codex exec", true).slice(0, 1)] : []),
        rowFromSamples("--version: kosong vs codex", of("kosongVersion", "exit"), "codex --version", of("codexVersion", "exit"), { note: "informational" }),
        rowFromSamples("--version: kosong vs node", of("kosongVersion", "exit"), "node -p 0", of("node", "exit"), { goal: 1.5 }),
      ];
      if (baselineBin) {
        rows.push(
          rowFromSamples("--version: this build vs the baseline build", of("kosongVersion", "exit"), "the baseline build's --version", of("baselineVersion", "exit"), { note: "informational" }),
          rowFromSamples("--version: the baseline build vs node", of("baselineVersion", "exit"), "node -p 0", of("node", "exit"), { note: "informational" }),
        );
      }
      if (hasGnuTime) {
        rows.push(
          rowFromSamples("one-shot: peak RSS in MB (not ms), kosong -p vs codex exec", of("kosong", "rssMb"), "Codex CLI, the same turn (MB)", of("codex", "rssMb"), {
            note: `informational: ${median(of("kosong", "rssMb")).toFixed(0)} MB against ${median(of("codex", "rssMb")).toFixed(0)} MB`,
          }),
        );
      }
      if (terminal) {
        const readyOf = (name: string, key: ScalarOfReady) => ready[name]!.map((r) => r[key]);
        const mb = (name: string, key: ScalarOfReady) => `${median(readyOf(name, key)).toFixed(0)} MB`;
        const laterOf = (name: string, i: number) => ready[name]!.map((r) => r.laterRssMb[i]!);
        const laterMb = (name: string, i: number) => `${median(laterOf(name, i)).toFixed(1)} MB`;
        const afters = laterMs(quick).map((ms) => `${ms / 1000} s`);
        const after = afters.at(-1)!;
        /** The interactive rows of the kosong build `name` (`kosong`, `baseline`) against `against` (`codex`, `baseline`). */
        const interactiveRows = (name: string, label: string, against: string, againstLabel: string, goals: boolean): BenchRow[] => [
          rowFromSamples(`interactive: start → ready prompt, ${label} vs ${againstLabel} (pty + headless xterm)`, readyOf(name, "ms"), `${againstLabel}, to its prompt`, readyOf(against, "ms"), goals ? { goal: 0.9 } : { note: "informational" }),
          rowFromSamples(`interactive: CPU time to the ready prompt (all threads), ${label} vs ${againstLabel}`, readyOf(name, "cpuMs"), `${againstLabel}, to its prompt`, readyOf(against, "cpuMs"), { note: "informational" }),
          rowFromSamples(`interactive: RSS at the ready prompt in MB (not ms), ${label} vs ${againstLabel}`, readyOf(name, "rssMb"), `${againstLabel} at its prompt (MB)`, readyOf(against, "rssMb"), {
            ...(goals ? { goal: 1 } : {}),
            note: `${mb(name, "rssMb")} against ${mb(against, "rssMb")}`,
          }),
          // The idle prompt over time: each agent read at the same instants after its own prompt showed.
          ...afters.map((at, i) =>
            rowFromSamples(`interactive: RSS ${at} after the prompt in MB (not ms), ${label} vs ${againstLabel}`, laterOf(name, i), `${againstLabel} ${at} after (MB)`, laterOf(against, i), {
              note: `informational: ${laterMb(name, i)} against ${laterMb(against, i)}`,
            }),
          ),
          rowFromSamples(`interactive: RSS of all its processes ${after} after the prompt in MB (not ms), ${label} vs ${againstLabel}`, readyOf(name, "treeRssMb"), `${againstLabel}, its processes (MB)`, readyOf(against, "treeRssMb"), {
            note: `informational: ${mb(name, "treeRssMb")} against ${mb(against, "treeRssMb")} (children and daemons left running included)`,
          }),
        ];
        /** An idle floor's RSS against Codex's prompt, at the instant each is ready and at the same instants after. */
        const floorRows = (Object.keys(floors) as (keyof typeof floors)[]).flatMap((floor) => [
          rowFromSamples(`interactive floor: RSS of an idle ${floors[floor]} when ready in MB (not ms), vs Codex CLI's TUI at its prompt`, readyOf(floor, "rssMb"), "Codex CLI's TUI at its prompt (MB)", readyOf("codex", "rssMb"), {
            note: `informational: ${mb(floor, "rssMb")} then, ${afters.map((at, i) => `${laterMb(floor, i)} ${at}`).join(", ")} after (Codex ${afters.map((_, i) => laterMb("codex", i)).join(", ")}; kosong ${mb("kosong", "rssMb")}, ${afters.map((_, i) => laterMb("kosong", i)).join(", ")})`,
          }),
        ]);
        rows.push(...interactiveRows("kosong", "kosong", "codex", "Codex CLI's TUI", true), ...floorRows);
        if (baselineBin) rows.push(...interactiveRows("kosong", "kosong", "baseline", "the baseline build", false), ...interactiveRows("baseline", "the baseline build", "codex", "Codex CLI's TUI", true));
        rows.push(...firstTurnRows(firstTurns, "kosong", "kosong", "codex", "Codex CLI's TUI"));
        if (baselineBin) rows.push(...firstTurnRows(firstTurns, "kosong", "kosong", "baseline", "the baseline build"), ...firstTurnRows(firstTurns, "baseline", "the baseline build", "codex", "Codex CLI's TUI"));
      }
      return rows;
    } finally {
      await server.close();
      // Codex's daemons outlive its TUI: stopped here, and waited for (they write their state as they stop) before their folder goes.
      await stopProcessesUnder(work);
      rmSync(work, { recursive: true, force: true, maxRetries: 5 });
    }
  },
};

/**
 * The rows of readiness as a user meets it, side `name` against side `against` (`../first-turn-session.ts`, each session's
 * first turn typed the moment the prompt shows): spawn → the request carrying `hi` reaching the server, and the RSS of all
 * the agent's processes then (the reply held until they were read) and when the reply is drawn.
 */
function firstTurnRows(samples: Record<string, TypedFirstTurn[]>, name: string, label: string, against: string, againstLabel: string): BenchRow[] {
  const of = (side: string, pick: (turn: TurnTimes) => number) => samples[side]!.map((s) => pick(s.turn));
  const at = (side: string, pick: (turn: TurnTimes) => number, digits = 0) => median(of(side, pick)).toFixed(digits);
  const counted = (side: string, key: "waitedForStartup" | "retried") => samples[side]!.filter((s) => s[key]).length;
  const when = (side: string, sideLabel: string) => {
    const waits = counted(side, "waitedForStartup");
    const retries = counted(side, "retried");
    return (
      `${sideLabel}: prompt ${at(side, (t) => t.readyAfterStart)}, Enter ${at(side, (t) => t.enterAfterStart)}, request ${at(side, startToRequest)} ms` +
      `${waits > 0 ? `, Enter waited for the start-up in ${waits} of ${samples[side]!.length}` : ""}${retries > 0 ? `, ${retries} session(s) run again after a dropped Enter` : ""}`
    );
  };
  /** The memory read at `instant`: its processes' summed RSS (the rows' figure), its range over the run, the anonymous part, its own process's. */
  const memory = (side: string, instant: "atRequest" | "atReply") => {
    const read = (key: keyof TurnMemory) => samples[side]!.map((s) => s.memory[instant][key]);
    const rss = read("rssMb");
    const at = (key: keyof TurnMemory, digits = 1) => median(read(key)).toFixed(digits);
    return `${at("rssMb")} MB in ${at("processes", 0)} process(es) (${Math.min(...rss).toFixed(0)}-${Math.max(...rss).toFixed(0)}; anonymous ${at("anonMb")}; its own process ${at("ownRssMb")})`;
  };
  const typed = "`hi` + Enter typed the moment the prompt shows";
  const instants = { atRequest: "at that first request", atReply: "when the first reply is drawn" } as const;
  return [
    rowFromSamples(`interactive: start → first request, ${typed}, ${label} vs ${againstLabel} (pty + headless xterm)`, of(name, startToRequest), `${againstLabel}, the same`, of(against, startToRequest), {
      note: `informational; medians from the spawn: ${when(name, label)}; ${when(against, againstLabel)}`,
    }),
    ...(Object.keys(instants) as (keyof typeof instants)[]).map((instant) => {
      const rss = (side: string) => samples[side]!.map((s) => s.memory[instant].rssMb);
      return rowFromSamples(`interactive: RSS of all its processes ${instants[instant]} (${typed}) in MB (not ms), ${label} vs ${againstLabel}`, rss(name), `${againstLabel}, its processes (MB)`, rss(against), {
        note: `informational: ${memory(name, instant)} against ${memory(against, instant)}`,
      });
    }),
  ];
}

/**
 * The tool turn's rows of side `name` against side `against`: the first answer byte (with the 0.9 goal when `goal`), the
 * exit, and with GNU time the CPU time and the peak RSS.
 */
function toolTurnRows(of: (name: string, key: keyof Run) => number[], name: string, label: string, against: string, againstLabel: string, goal: boolean): BenchRow[] {
  const turn = "tool call + 2,000-token streamed answer";
  const row = (what: string, key: keyof Run, extra: { goal?: number; note?: string }) => rowFromSamples(`one-shot, ${turn}: ${what}, ${label} vs ${againstLabel}`, of(name, key), `${againstLabel}, the same turn`, of(against, key), extra);
  const mb = (side: string) => `${median(of(side, "rssMb")).toFixed(0)} MB`;
  return [
    row("first answer byte", "firstByte", goal ? { goal: 0.9 } : { note: "informational" }),
    row("exit", "exit", { note: "informational" }),
    ...(hasGnuTime
      ? [row("CPU time (user + system)", "cpuMs", { note: "informational" }), row("peak RSS in MB (not ms)", "rssMb", { note: `informational: ${mb(name)} against ${mb(against)}` })]
      : []),
  ];
}

export default benchmark;
