/**
 * kosong beside Codex CLI (a native binary) on the same one-shot turn from
 * the same fake server (offline, real HTTP: kosong through the openai SDK's
 * Chat Completions, Codex through its Responses client), alternating in the
 * same rounds: the first byte of the answer on stdout, the exit, the peak
 * RSS (GNU time's maximum resident set size, in MB: the row's "ms" columns
 * hold MB), and `--version` (also against `node -e 0`).
 *
 * Codex is not a dependency: set `KOSONG_BENCH_CODEX` to its binary, or
 * have `codex` on the PATH (`npm install -g @openai/codex` installs the
 * native binary in a platform package); without it the benchmark reports
 * nothing. Codex runs with a config of its own (a `fake` provider whose
 * base URL is the fake server, `wire_api = "responses"`, the key in
 * `FAKE_API_KEY`) in a folder under the home (Codex refuses its helpers
 * under /tmp). Codex's `exec` prints its answer when the message is
 * complete; on this one-line answer that is its first byte.
 *
 * Interactive: each agent in a pseudo-terminal (util-linux `script`) whose
 * output goes to a headless xterm.js, which answers the terminal's queries
 * (cursor position, colours, modes: Codex's TUI waits for those answers, a
 * bare pty gives none) — spawn → the ready prompt on the screen (kosong's
 * status line and `› `, Codex's `›` composer), and the RSS of the agent's
 * process then (`/proc`, MB in the ms columns).
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { startFakeProviderServer, type FakeProviderServer } from "@kosong/core/testing";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import xterm from "@xterm/headless";
import { ensureCliBuilt, hasScript, kosongBin } from "../cli-process.ts";
import { median, rowFromSamples } from "../measure.ts";

/** Codex's binary: `KOSONG_BENCH_CODEX`, else `codex` on the PATH, else null. */
function codexBinary(): string | null {
  const given = process.env.KOSONG_BENCH_CODEX;
  if (given) return existsSync(given) ? given : null;
  try {
    execFileSync("codex", ["--version"], { stdio: "ignore" });
    return "codex";
  } catch {
    return null;
  }
}

const hasGnuTime = existsSync("/usr/bin/time");

interface Run {
  firstByte: number;
  exit: number;
  /** Peak RSS in MB (NaN without GNU time). */
  rssMb: number;
}

/** Runs `command args` (under GNU time when there) to its end: the first stdout byte, the exit, the peak RSS. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const [file, argv] = hasGnuTime ? ["/usr/bin/time", ["-f", "maxrss %M", command, ...args]] : [command, args];
    const child = spawn(file, argv, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let firstByte: number | null = null;
    let stderr = "";
    child.stdout.on("data", () => (firstByte ??= performance.now() - start));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const exit = performance.now() - start;
      const rss = /maxrss (\d+)/.exec(stderr);
      if (code !== 0 || firstByte === null) return reject(new Error(`${command} ${args.join(" ")} exited ${code}: ${stderr.slice(-600)}`));
      resolve({ firstByte, exit, rssMb: rss ? Number(rss[1]) / 1024 : Number.NaN });
    });
  });
}

interface Ready {
  ms: number;
  rssMb: number;
}

/** The process `script` runs the command as (its child: the command is exec'd), or null. */
function commandPid(scriptPid: number): number | null {
  try {
    const child = execFileSync("pgrep", ["-P", String(scriptPid)], { encoding: "utf8" }).trim().split("\n")[0];
    return child ? Number(child) : null;
  } catch {
    return null;
  }
}

/**
 * Runs `command args` in a pseudo-terminal read by a headless xterm.js (which answers the terminal's queries) until
 * `isReady(screen)`; returns the time from the spawn and the process's RSS then, and ends it.
 */
function readyInTerminal(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, isReady: (screen: string) => boolean): Promise<Ready> {
  const quoted = [command, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(" ");
  const term = new xterm.Terminal({ cols: 100, rows: 30, allowProposedApi: true });
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn("script", ["-qefc", `stty cols 100 rows 30; exec ${quoted}`, "/dev/null"], { env, cwd, stdio: ["pipe", "pipe", "ignore"] });
    let result: Ready | null = null;
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const screen = () => {
      const buffer = term.buffer.active;
      const lines: string[] = [];
      for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
      return lines.join("\n");
    };
    term.onData((data) => child.stdin.write(data));
    child.stdout.on("data", (chunk: Buffer) =>
      term.write(chunk, () => {
        if (result !== null || !isReady(screen())) return;
        const ms = performance.now() - start;
        const pid = commandPid(child.pid!);
        const rss = pid === null ? null : /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
        result = { ms, rssMb: rss ? Number(rss[1]) / 1024 : Number.NaN };
        if (pid !== null) process.kill(pid, "SIGTERM");
      }),
    );
    child.on("error", reject);
    child.on("close", () => {
      clearTimeout(timer);
      term.dispose();
      if (result === null) return reject(new Error(`${command} never showed its prompt: ${JSON.stringify(screen().trim().slice(-400))}`));
      resolve(result);
    });
  });
}

/** kosong's prompt: after its status line, the `› ` input line. */
const kosongReady = (screen: string) => {
  const status = screen.indexOf("compaction:");
  return status >= 0 && screen.includes("› ", status);
};

/** Codex's composer: a line that starts with `›`. */
const codexReady = (screen: string) => /^› /m.test(screen);

const reply = { message: { role: "assistant" as const, content: [{ type: "text" as const, text: "Hello there." }] } };

function oneShot(server: FakeProviderServer, command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Run> {
  server.reset();
  server.enqueue(reply);
  return run(command, args, env, cwd);
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
      const codexHome = path.join(work, ".codex");
      mkdirSync(codexHome);
      writeFileSync(
        path.join(codexHome, "config.toml"),
        `model = "bench-model"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\nbase_url = "${server.url}/v1"\nenv_key = "FAKE_API_KEY"\nwire_api = "responses"\n\n[projects."${work}"]\ntrust_level = "trusted"\n`,
      );
      const base = { PATH: process.env.PATH ?? "", HOME: work };
      const kosongEnv = { ...base, KOSONG_HOME: path.join(work, ".kosong"), OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: `${server.url}/v1`, NO_COLOR: "1" };
      const codexEnv = { ...base, CODEX_HOME: codexHome, FAKE_API_KEY: "sk-bench" };
      const kosongArgs = [kosongBin, "-p", "hi", "--model", "bench-model"];
      const codexArgs = ["exec", "--skip-git-repo-check", "hi"];
      const sides: Record<string, () => Promise<Run>> = {
        kosong: () => oneShot(server, process.execPath, kosongArgs, kosongEnv, work),
        codex: () => oneShot(server, codex, codexArgs, codexEnv, work),
        kosongVersion: () => run(process.execPath, [kosongBin, "--version"], kosongEnv, work),
        codexVersion: () => run(codex, ["--version"], codexEnv, work),
        node: () => run(process.execPath, ["-p", "0"], base, work),
      };
      const terminal = hasScript();
      const ready: Record<string, Ready[]> = { kosong: [], codex: [] };
      if (terminal) {
        const term = { TERM: "xterm-256color" };
        sides.kosongReady = async () => {
          ready.kosong!.push(await readyInTerminal(process.execPath, [kosongBin, "--model", "bench-model"], { ...kosongEnv, ...term }, work, kosongReady));
          return { firstByte: 0, exit: 0, rssMb: 0 };
        };
        sides.codexReady = async () => {
          ready.codex!.push(await readyInTerminal(codex, [], { ...codexEnv, ...term }, work, codexReady));
          return { firstByte: 0, exit: 0, rssMb: 0 };
        };
      }
      const names = Object.keys(sides);
      const runs: Record<string, Run[]> = Object.fromEntries(names.map((name) => [name, []]));
      // Untimed: caches warm up.
      for (const name of names) await sides[name]!();
      ready.kosong!.length = 0;
      ready.codex!.length = 0;
      for (let round = 0; round < rounds; round++) {
        for (let i = 0; i < names.length; i++) {
          const name = names[(i + round) % names.length]!;
          runs[name]!.push(await sides[name]!());
        }
      }
      const of = (name: string, key: keyof Run) => runs[name]!.map((r) => r[key]);
      const rows: BenchRow[] = [
        rowFromSamples("one-shot: first answer byte, kosong -p vs codex exec (fake server)", of("kosong", "firstByte"), "Codex CLI, the same turn", of("codex", "firstByte"), { goal: 0.9 }),
        rowFromSamples("one-shot: exit, kosong -p vs codex exec", of("kosong", "exit"), "Codex CLI, the same turn", of("codex", "exit"), { note: "informational" }),
        rowFromSamples("--version: kosong vs codex", of("kosongVersion", "exit"), "codex --version", of("codexVersion", "exit"), { note: "informational" }),
        rowFromSamples("--version: kosong vs node", of("kosongVersion", "exit"), "node -p 0", of("node", "exit"), { goal: 1.5 }),
      ];
      if (hasGnuTime) {
        rows.push(
          rowFromSamples("one-shot: peak RSS in MB (not ms), kosong -p vs codex exec", of("kosong", "rssMb"), "Codex CLI, the same turn (MB)", of("codex", "rssMb"), {
            note: `informational: ${median(of("kosong", "rssMb")).toFixed(0)} MB against ${median(of("codex", "rssMb")).toFixed(0)} MB`,
          }),
        );
      }
      if (terminal) {
        const readyOf = (name: string, key: keyof Ready) => ready[name]!.map((r) => r[key]);
        rows.push(
          rowFromSamples("interactive: start → ready prompt, kosong vs codex (pty + headless xterm)", readyOf("kosong", "ms"), "Codex CLI's TUI to its composer", readyOf("codex", "ms"), { goal: 0.9 }),
          rowFromSamples("interactive: RSS at the ready prompt in MB (not ms), kosong vs codex", readyOf("kosong", "rssMb"), "Codex CLI at its composer (MB)", readyOf("codex", "rssMb"), {
            goal: 1,
            note: `${median(readyOf("kosong", "rssMb")).toFixed(0)} MB against ${median(readyOf("codex", "rssMb")).toFixed(0)} MB`,
          }),
        );
      }
      return rows;
    } finally {
      await server.close();
      rmSync(work, { recursive: true, force: true, maxRetries: 5 });
    }
  },
};

export default benchmark;
