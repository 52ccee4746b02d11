/**
 * Property: a real `node` child running turns with parallel tool calls on a
 * real `context.jsonl` (children/turn-child.ts, on the built packages) is
 * SIGKILLed at a random moment (at a random event, or after a random delay).
 * Restored through `Context`, every tool call has exactly one result (one
 * the crash left open is answered as interrupted by the restore), a second
 * restore gives the same history with nothing left to repair, and the next
 * turn runs on it. Seeded: the seed is printed, `SOUL_PROPERTY_SEED` replays
 * it, `SOUL_KILL_TRIALS` sets the number of kills (default 6).
 * Needs the built packages: `pnpm --filter @kosong/soul... build` (as `pnpm test` does).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Context } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { randomFor, workloadSoul } from "../children/turn-child.js";
import { callCount, callProblems, propertySeed, tempDir, trialCount } from "./helpers/property.js";

const trials = trialCount("SOUL_KILL_TRIALS", 6);
const packageDir = fileURLToPath(new URL("../../", import.meta.url));
const child = path.join(packageDir, "test/children/turn-child.ts");
/** Turns per child: ~150-200 events over a few hundred ms, after a start that takes longer. */
const TURNS = 6;

/**
 * Runs the child on `file` and SIGKILLs it at the `event`-th event line, or
 * `ms` after it is ready. Resolves with whether it was killed before "done".
 */
async function runAndKill(file: string, seed: number, at: { event: number } | { ms: number }): Promise<{ killed: boolean; events: number }> {
  const proc = spawn(process.execPath, [child, file, String(seed), String(TURNS)], { cwd: packageDir });
  let out = "";
  let err = "";
  let events = 0;
  let finished = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const kill = () => {
    if (!finished && proc.exitCode === null) proc.kill("SIGKILL");
  };
  proc.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  proc.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    let newline: number;
    while ((newline = out.indexOf("\n")) >= 0) {
      const line = out.slice(0, newline);
      out = out.slice(newline + 1);
      if (line === "ready" && "ms" in at) timer = setTimeout(kill, at.ms);
      if (line.startsWith("event ") && ++events === ("event" in at ? at.event : -1)) kill();
      if (line === "done") finished = true;
    }
  });
  const [code, signal] = (await once(proc, "exit")) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  if (signal !== "SIGKILL" && code !== 0) throw new Error(`the child failed (${code}); is the package built (pnpm --filter @kosong/soul... build)?\n${err}`);
  return { killed: signal === "SIGKILL", events };
}

describe("SIGKILLing a process that runs turns with parallel tools", () => {
  it(`leaves a file that restores with every call answered once, and the next turn runs (${trials} kills)`, async () => {
    const seed = propertySeed("sigkill property");
    const dir = await tempDir();
    let killed = 0;
    let repaired = 0;
    let damaged = 0;
    let calls = 0;
    for (let trial = 0; trial < trials; trial++) {
      const random = randomFor(seed, trial);
      const at = random() < 0.75 ? { event: 1 + Math.floor(random() * 150) } : { ms: Math.floor(random() * 250) };
      const where = `seed ${seed}, trial ${trial}, kill at ${JSON.stringify(at)}`;
      const file = path.join(dir, `context-${trial}.jsonl`);
      const run = await runAndKill(file, seed + trial, at);
      if (run.killed) killed++;

      // The first restore repairs what the crash left; a second one finds the same history and nothing to repair.
      const first = new Context(file);
      const report = await first.restore();
      expect(callProblems(first.history), where).toEqual([]);
      repaired += report.interruptedToolCalls.length;
      damaged += report.skipped.length;
      calls += callCount(first.history);
      const history = first.history.map((m) => structuredClone(m));
      await first.close();

      const second = new Context(file);
      expect((await second.restore()).interruptedToolCalls, where).toEqual([]);
      expect(second.history, where).toEqual(history);

      // The next turn runs on top of it.
      const soul = workloadSoul(second, seed + trial);
      const next = await soul.run("turn 1000").result;
      expect(next.stopReason, where).toBe("no_tool_calls");
      expect(callProblems(second.history), where).toEqual([]);
      expect(second.history.slice(0, history.length), where).toEqual(history);
      const after = second.history.map((m) => structuredClone(m));
      await second.close();
      const third = new Context(file);
      await third.restore();
      expect(third.history, where).toEqual(after);
      await third.close();
    }
    console.log(`[sigkill property] ${trials} runs, ${killed} killed mid-way; ${calls} tool calls restored, ${repaired} answered as interrupted by the restore, ${damaged} damaged lines skipped`);
    expect(killed).toBeGreaterThanOrEqual(trials / 2);
  });
});
