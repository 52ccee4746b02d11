/**
 * Property: a real `node` child running turns with parallel tool calls on a
 * real `context.jsonl` (children/turn-child.ts, on the built packages) is
 * SIGKILLed at a random moment: at a random event, after a random delay, or
 * (every other child, whose tools return megabytes now and then) while the
 * file grows with a step's big append, which the kill can cut mid-write
 * (the other children compact every turn or two, so kills land there too).
 * Restored through `Context`, every tool call has exactly one result (one
 * the crash left open is answered as interrupted by the restore), a second
 * restore gives the same history with nothing left to repair, and the next
 * turn runs on it. Seeded: the seed is printed, `SOUL_PROPERTY_SEED` replays
 * it, `SOUL_KILL_TRIALS` sets the number of kills (default 6).
 * Needs the built packages: `pnpm --filter @kosong/soul... build` (as `pnpm test` does).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync, statSync } from "node:fs";
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
 * When to kill: at the n-th event, `ms` after the child is ready, or, after
 * its first megabyte tool result, as soon as its file has grown by `grownBy`
 * bytes (inside the write of the step's batch, when it is that big).
 */
type KillPoint = { event: number } | { ms: number } | { grownBy: number };

/** Watches the size of `file` (busily: a write of megabytes takes only milliseconds) and calls `kill` once it grew by `bytes`, or after 3 s. */
function killWhenGrown(file: string, bytes: number, kill: () => void): void {
  const size = () => (existsSync(file) ? statSync(file).size : 0);
  const start = size();
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline) {
    if (size() >= start + bytes) break;
  }
  kill();
}

/** Runs the child on `file` and SIGKILLs it at `at`. Resolves with whether it was killed before "done". */
async function runAndKill(file: string, seed: number, big: boolean, at: KillPoint): Promise<{ killed: boolean; events: number }> {
  const proc = spawn(process.execPath, [child, file, String(seed), String(TURNS), ...(big ? ["big"] : [])], { cwd: packageDir });
  let out = "";
  let err = "";
  let events = 0;
  let finished = false;
  let watched = false;
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
      // A megabyte result: the step's append (a long write) follows; kill it once the file has grown by `grownBy`.
      if ("grownBy" in at && !watched && /^event ToolResult \d{6,}$/.test(line)) {
        watched = true;
        killWhenGrown(file, at.grownBy, kill);
      }
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
    let rotated = 0;
    for (let trial = 0; trial < trials; trial++) {
      const random = randomFor(seed, trial);
      // Every other child's tools return megabytes now and then: long appends, which a SIGKILL can cut mid-write.
      const big = trial % 2 === 1;
      const pick = random();
      const at: KillPoint = big && pick < 0.6 ? { grownBy: 1 + Math.floor(random() * 262_144) } : pick < 0.8 ? { event: 1 + Math.floor(random() * 150) } : { ms: Math.floor(random() * 250) };
      const where = `seed ${seed}, trial ${trial}, ${big ? "big outputs, " : ""}kill at ${JSON.stringify(at)}`;
      const file = path.join(dir, `context-${trial}.jsonl`);
      const run = await runAndKill(file, seed + trial, big, at);
      if (run.killed) killed++;
      if (readdirSync(dir).some((name) => name.startsWith(`context-${trial}_`))) rotated++;

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
    console.log(`[sigkill property] ${trials} runs, ${killed} killed mid-way; ${calls} tool calls restored, ${repaired} answered as interrupted by the restore, ${damaged} damaged lines skipped; ${rotated} children had reverted (D-Mail) or compacted before the kill`);
    expect(killed).toBeGreaterThanOrEqual(trials / 2);
  }, 30_000 + trials * 8_000);
});
