/**
 * The interactive CLI's first turn after start, as a user feels it, against
 * a later turn of the same session (the SDK and everything else loaded by
 * then), and the same for Codex CLI's TUI (a native binary) in the same
 * rounds: is a first turn slower than a later one, for either agent?
 *
 * Each sample is a fresh session (`../first-turn-session.ts`): the agent in
 * a pseudo-terminal (util-linux `script`; the benchmark reports nothing
 * without it) drawn by a headless xterm.js, talking to the fake provider
 * server (real HTTP; kosong through the official openai SDK, Codex through a
 * `fake` provider with `wire_api = "responses"`, `../codex-cli.ts`), both in
 * the same small git project with an AGENTS.md. For each of two turns it
 * waits until the agent is ready (kosong: its prompt after the status line;
 * Codex: its composer, with no turn working), types `h`, `i` and Enter (each
 * key once the agent drew the last), notes when the server got the request
 * carrying `hi`, and waits for the reply's text on the screen. Typing starts
 * the moment the agent is ready (the worst case) and, in other sets of rows,
 * 700 ms after it (a user who reads before typing) and, in full runs, 2 s
 * after it (a session long started: Codex's TUI shows its composer some
 * 500 ms before its session is ready, and may keep starting after).
 *
 * Rows per agent and pause, each the first turn against the second turn of
 * the same session (the ratio is first / later, the median of the sessions'
 * own ratios):
 * - Enter → the request reaching the server;
 * - Enter → the reply's text drawn on the screen (the same measure for both
 *   agents);
 * - the CPU time of all the agent's processes and threads over Enter → the
 *   reply drawn (`/proc/PID/task/TID/schedstat`: the agent's process, its
 *   descendants, and the processes running from its home: Codex 0.171's TUI
 *   hands the turn to an app-server daemon it started, which sends the
 *   requests; the note gives the agent's own process alone);
 * - kosong only (rows as before): the whole turn, Enter → the next prompt
 *   drawn, and its main thread's CPU time over that span.
 * And kosong's first turn against Codex's first turn (the reply drawn, the
 * CPU time), sessions of the same round paired. CPU rows are left out where
 * `/proc` cannot be read.
 *
 * Codex runs when `KOSONG_BENCH_CODEX` (its binary) is set or `codex` is on
 * the PATH. Its daemon is started by the untimed warm-up session and reused
 * by every later session (as Codex runs for a user), and stopped at the end.
 * Codex's composer shows before its session is ready: an Enter typed then
 * waits ("Waiting for startup") and is sent when it is; the rows include
 * that wait, and their note counts the first turns that showed it. A
 * session where the agent drops the Enter (no request within 15 s; seen
 * with Codex while its daemon starts) is run again once, and counted in the
 * note.
 *
 * Until Codex joined, kosong ran in a folder without git and got `hi` and
 * Enter in one write; keys one at a time (Codex takes a burst as a paste)
 * put Enter some ms after the prompt appears, so the "as it is ready" rows
 * are not comparable with figures from before.
 *
 * With `KOSONG_BENCH_BASELINE_CLI` set to another build's `kosong.js` (e.g.
 * a copy of main's `dist` as `apps/cli/dist-main`; not under node_modules,
 * where the same build measured differently), its sessions alternate with
 * the others in the same rounds (each round starting one agent further on)
 * and get rows of their own. The figures are informational (issue 33's
 * target: within 100 ms on a started session, and the first turn no slower
 * than a later one).
 *
 * Needs the built CLI (`apps/cli/dist/kosong.js`); builds it when missing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startFakeProviderServer, type FakeProviderServer } from "@kosong/core/testing";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { ensureCliBuilt, hasScript, kosongBin, makeProject } from "../cli-process.ts";
import { codexBinary, codexEnv, writeCodexConfig } from "../codex-cli.ts";
import { againOnDroppedEnter, codexReady, codexStartingUp, type FirstTurnAgent, kosongReady, type SessionRecord, type TurnTimes, twoTurns } from "../first-turn-session.ts";
import { median, rowFromSamples } from "../measure.ts";
import { stopProcessesUnder } from "../process-tree.ts";

/** An agent of the run: its name in the rows, how to start it, and whether it draws kosong's prompt (its whole-turn rows). */
interface Contender {
  name: string;
  agent: FirstTurnAgent;
  kosong: boolean;
}

/** The samples of one agent at one pause: its first turns, its later turns, the sessions run again after a dropped Enter, and the first turns whose Enter waited for the agent's start-up. */
interface Samples {
  first: TurnTimes[];
  later: TurnTimes[];
  retried: number;
  startupWaits: number;
}

const pauseText = (pause: number): string => (pause === 0 ? "typed as it is ready" : `typed ${pause} ms after it is ready`);

/** What each measure of a turn is called in a row. */
const measures = {
  request: "Enter → first request",
  reply: "Enter → the reply drawn",
  cpu: "CPU time of all its processes (all threads), Enter → the reply drawn",
  ready: "the whole first turn (Enter → next prompt)",
  mainThreadCpu: "the main thread's CPU time of the first turn (Enter → next prompt)",
} as const;

type Measure = keyof typeof measures;

const ms = (values: number[], key: Measure) => median(values).toFixed(key === "cpu" || key === "mainThreadCpu" ? 1 : 0);

/** The rows of one agent at one pause, each its first turn against its later turn. */
function rows({ name, kosong }: Contender, pause: number, { first, later, retried, startupWaits }: Samples): BenchRow[] {
  const pick = (times: TurnTimes[], key: keyof TurnTimes) => times.map((t) => t[key]);
  const all = [...first, ...later];
  const keys = (["request", "reply", "cpu", ...(kosong ? (["ready", "mainThreadCpu"] as const) : [])] as const).filter((key) => all.every((t) => Number.isFinite(t[key])));
  return keys.map((key) => {
    const firsts = pick(first, key);
    const laters = pick(later, key);
    const own = key === "cpu" ? `; its own process ${ms(pick(first, "ownCpu"), key)} and ${ms(pick(later, "ownCpu"), key)} ms` : "";
    const again = `${retried > 0 ? `; ${retried} session(s) run again after a dropped Enter` : ""}${startupWaits > 0 ? `; in ${startupWaits} of ${first.length} first turns Enter waited for the start-up to end` : ""}`;
    return rowFromSamples(`${name} (interactive): ${measures[key]}, ${pauseText(pause)} (pty, fake server)`, firsts, "the same for the second turn of the session", laters, {
      note: `informational, target: ${key === "request" ? "within 100 ms and " : ""}no slower than a later turn; first turn ${ms(firsts, key)} ms, later ${ms(laters, key)} ms here${own}${again}`,
    });
  });
}

/** kosong's first turn against Codex's, sessions of the same round paired: the reply drawn and the CPU time. */
function againstCodex(kosong: Samples, codex: Samples, pause: number): BenchRow[] {
  return (["reply", "cpu"] as const)
    .filter((key) => [...kosong.first, ...codex.first].every((t) => Number.isFinite(t[key])))
    .map((key) =>
      rowFromSamples(`first turn, kosong vs Codex CLI's TUI: ${measures[key]}, ${pauseText(pause)}`, kosong.first.map((t) => t[key]), "Codex CLI's first turn", codex.first.map((t) => t[key]), {
        note: "informational",
      }),
    );
}

/** A session of `agent`, run once more when the agent dropped the Enter (no request came). */
function session(agent: FirstTurnAgent, server: FakeProviderServer, pause: number, samples?: Samples): Promise<SessionRecord> {
  return againOnDroppedEnter(() => twoTurns(agent, server, pause), () => {
    if (samples) samples.retried++;
  });
}

const benchmark: Benchmark = {
  name: "cli-first-turn",
  async run({ quick }) {
    if (!hasScript()) return [];
    ensureCliBuilt();
    const rounds = quick ? 2 : 11;
    // Under the home, not /tmp: Codex will not put its helpers in a temporary folder.
    const work = mkdtempSync(path.join(os.homedir(), ".kosong-bench-first-turn-"));
    const server = await startFakeProviderServer();
    try {
      const project = makeProject(work);
      const term = { TERM: "xterm-256color" };
      const kosongHome = path.join(work, ".kosong");
      const kosongEnv = { PATH: process.env.PATH ?? "", HOME: work, KOSONG_HOME: kosongHome, OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: `${server.url}/v1`, ...term };
      const kosongAgent = (bin: string): FirstTurnAgent => ({ command: process.execPath, args: [bin, "--model", "bench-model"], env: kosongEnv, cwd: project, home: kosongHome, ready: kosongReady });
      const baseline = process.env.KOSONG_BENCH_BASELINE_CLI;
      const codex = codexBinary();
      const codexHome = path.join(work, ".codex");
      if (codex) writeCodexConfig(codexHome, server.url, project);
      const contenders: Contender[] = [
        { name: "kosong", agent: kosongAgent(kosongBin), kosong: true },
        ...(baseline ? [{ name: `baseline ${baseline}`, agent: kosongAgent(baseline), kosong: true }] : []),
        ...(codex ? [{ name: "Codex CLI", agent: { command: codex, args: [], env: { ...codexEnv(work, codexHome), ...term }, cwd: project, home: codexHome, ready: codexReady, startingUp: codexStartingUp }, kosong: false }] : []),
      ];
      // Typed the moment the agent is ready (the worst case), after a short read, and (full runs) on a session long started.
      const pauses = quick ? [0, 700] : [0, 700, 2_000];
      const samples = contenders.map(() => pauses.map((): Samples => ({ first: [], later: [], retried: 0, startupWaits: 0 })));
      // One untimed session each warms the compile cache and the file system cache, and starts Codex's daemon.
      for (const { agent } of contenders) await session(agent, server, 700);
      for (let round = 0; round < rounds; round++) {
        for (const [i, pause] of pauses.entries()) {
          // Each round starts one agent further on, so that none always runs right after another.
          for (let k = 0; k < contenders.length; k++) {
            const c = (k + round) % contenders.length;
            const into = samples[c]![i]!;
            const { turns, waitedForStartup } = await session(contenders[c]!.agent, server, pause, into);
            into.first.push(turns[0]);
            into.later.push(turns[1]);
            if (waitedForStartup[0]) into.startupWaits++;
          }
        }
      }
      const codexIndex = contenders.findIndex((c) => !c.kosong);
      return [
        ...contenders.flatMap((contender, c) => pauses.flatMap((pause, i) => rows(contender, pause, samples[c]![i]!))),
        ...(codexIndex >= 0 ? pauses.flatMap((pause, i) => againstCodex(samples[0]![i]!, samples[codexIndex]![i]!, pause)) : []),
      ];
    } finally {
      await server.close();
      // Codex's daemon outlives its TUI: stopped here, and waited for (it writes its state as it stops) before its folder goes.
      await stopProcessesUnder(work);
      rmSync(work, { recursive: true, force: true, maxRetries: 5 });
    }
  },
};

export default benchmark;
