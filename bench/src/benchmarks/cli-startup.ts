/**
 * The CLI's cold start, measured as a user feels it: a fresh `node` process
 * per sample, interleaved with the baseline in the same run.
 *
 * - `kosong --version` and `kosong --help` against `node -e 0` (goal: at
 *   most 3x; `--version` alone loads only the entry, `--help` the command
 *   line); with `KOSONG_BENCH_BASELINE_CLI` set to another build's
 *   `kosong.js` (a copy of main's `apps/cli/dist`), that build's
 *   `--version` and `--help` alternate in the same rounds, with rows of
 *   their own;
 * - `kosong` (interactive) to its prompt drawn, ready for input, in a
 *   pseudo-terminal (util-linux `script`; the row is left out without it)
 *   against `node` printing the prompt in one (informational; the issue's
 *   target is 600 ms on a quiet machine, the note gives the figure);
 * - `kosong -p` to its first streamed character from the fake provider
 *   server (real HTTP, the official openai SDK, a new session file each
 *   time) against a bare script that streams the same response with the
 *   openai SDK to its first character (informational: what the agent loop,
 *   the session file, the tools and the project context add to a start).
 *
 * Needs the built CLI (`apps/cli/dist/kosong.js`); builds it when missing.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startFakeProviderServer } from "@kosong/core/testing";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { ensureCliBuilt, hasScript, kosongBin, repoRoot } from "../cli-process.ts";
import { compare, roundRobin, rowFromSamples, toRow, type Work } from "../measure.ts";

/** Runs `node args` to its end; rejects on a non-zero exit. */
function runNode(args: string[], env: NodeJS.ProcessEnv = process.env, cwd?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, cwd, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`node ${args.join(" ")} exited ${code}: ${stderr}`))));
  });
}

/** Runs `node args` until its first byte on stdout (then lets it finish, untimed). */
function untilFirstOutput(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    let first = true;
    child.stdout.on("data", () => {
      if (first) resolve();
      first = false;
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (first) reject(new Error(`no output (exit ${code}): ${stderr}`));
    });
  });
}

/**
 * Runs `node args` in a pseudo-terminal (util-linux `script`) until `ready`
 * appears on its screen, then ends it with Ctrl-D (untimed).
 */
function untilScreenShows(args: string[], ready: string, env: NodeJS.ProcessEnv, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const command = [process.execPath, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(" ");
    const child = spawn("script", ["-qefc", command, "/dev/null"], { env, cwd, stdio: ["pipe", "pipe", "pipe"] });
    let screen = "";
    let shown = false;
    child.stdout.on("data", (chunk: Buffer) => {
      screen += chunk.toString();
      if (!shown && screen.includes(ready)) {
        shown = true;
        resolve();
        child.stdin.end("\u0004");
      }
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (!shown) reject(new Error(`never showed ${JSON.stringify(ready)} (exit ${code}): ${screen.slice(-500)}`));
    });
  });
}

/** The bare-SDK baseline: stream a completion with the openai SDK, exit at its first character. */
const sdkScript = `
import OpenAI from "openai";
const client = new OpenAI({ apiKey: "sk-bench", baseURL: process.env.OPENAI_BASE_URL, maxRetries: 0 });
const stream = await client.chat.completions.create({ model: "bench-model", stream: true, messages: [{ role: "user", content: "hi" }] });
for await (const chunk of stream) {
  const text = chunk.choices[0]?.delta?.content;
  if (text) { process.stdout.write(text); }
}
`;

const benchmark: Benchmark = {
  name: "cli-startup",
  async run({ quick }) {
    ensureCliBuilt();
    const options = quick ? { warmup: 0, rounds: 2 } : { warmup: 3, rounds: 21 };
    const rows: BenchRow[] = [];
    const baselineBin = process.env.KOSONG_BENCH_BASELINE_CLI;
    for (const flag of ["--version", "--help"]) {
      const sides: Record<string, Work> = { ours: () => runNode([kosongBin, flag]), node: () => runNode(["-e", "0"]) };
      if (baselineBin) sides.baseline = () => runNode([baselineBin, flag]);
      const times = await roundRobin(sides, options);
      rows.push(rowFromSamples(`kosong ${flag}, cold start`, times.ours!, "node -e 0", times.node!, { goal: 3 }));
      if (times.baseline) {
        rows.push(rowFromSamples(`kosong ${flag}, cold start: this build vs the baseline build`, times.ours!, "the baseline build (KOSONG_BENCH_BASELINE_CLI)", times.baseline, { note: "informational" }));
        rows.push(rowFromSamples(`kosong ${flag}, cold start: the baseline build`, times.baseline, "node -e 0", times.node!, { note: "informational" }));
      }
    }

    const work = mkdtempSync(path.join(tmpdir(), "kosong-bench-cli-"));
    const server = await startFakeProviderServer();
    try {
      if (hasScript()) {
        // The interactive mode ready for input (its prompt drawn), in a pseudo-terminal: against `node -e 0` in one.
        const env = { PATH: process.env.PATH ?? "", HOME: work, KOSONG_HOME: path.join(work, ".kosong"), OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: `${server.url}/v1`, TERM: "xterm-256color" };
        const ready = await compare(
          () => untilScreenShows([kosongBin, "--model", "bench-model"], "› ", env, work),
          () => untilScreenShows(["-e", "process.stdout.write('› ')"], "› ", env, work),
          options,
        );
        rows.push(toRow("kosong (interactive) ready for input, cold start in a pty", "node printing the prompt in a pty", ready, { note: `target: ready within 600 ms on a quiet machine; ours ${ready.ours_ms.toFixed(0)} ms here` }));
      }
      const sdkFile = path.join(repoRoot, "bench", ".cli-startup-sdk.mjs");
      writeFileSync(sdkFile, sdkScript);
      const env = { PATH: process.env.PATH ?? "", HOME: work, KOSONG_HOME: path.join(work, ".kosong"), OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: `${server.url}/v1`, NO_COLOR: "1" };
      const reply = { message: { role: "assistant" as const, content: [{ type: "text" as const, text: "Hello there." }] } };
      try {
        const firstChar = await compare(
          () => {
            server.enqueue(reply);
            return untilFirstOutput([kosongBin, "-p", "hi", "--model", "bench-model", "--no-project-context"], env, work);
          },
          () => {
            server.enqueue(reply);
            return untilFirstOutput([sdkFile], env, path.join(repoRoot, "bench"));
          },
          options,
        );
        rows.push(toRow("kosong -p to the first streamed character (fake server, openai SDK)", "a bare openai SDK script streaming the same reply", firstChar, { note: "informational: start-up of the agent loop, session file and tools" }));
      } finally {
        rmSync(sdkFile, { force: true });
      }
    } finally {
      await server.close();
      rmSync(work, { recursive: true, force: true, maxRetries: 5 });
    }
    return rows;
  },
};

export default benchmark;
