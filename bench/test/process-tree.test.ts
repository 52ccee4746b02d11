import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { agentProcesses, childrenOf, cpuMs, memoryOf, processCpuMs, processesUnder, rssMb, stopProcessesUnder, withDescendants } from "../src/process-tree.ts";

/** Resolves once `check` holds (polled every 10 ms), or rejects after 5 s. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never: ${what}`);
}

describe.skipIf(!existsSync("/proc/self/stat"))("an agent's processes, read from /proc", () => {
  const work = mkdtempSync(path.join(os.tmpdir(), "kosong-process-tree-"));
  const started: ChildProcess[] = [];
  afterAll(() => {
    for (const child of started) child.kill("SIGKILL");
    rmSync(work, { recursive: true, force: true });
  });

  it("finds a child's own children (a helper it started) among its descendants", async () => {
    const child = spawn("sh", ["-c", "sleep 30 & wait"], { stdio: "ignore" });
    started.push(child);
    await eventually(() => childrenOf(child.pid!).length === 1, "the shell's sleep");
    const [sleeper] = childrenOf(child.pid!);
    expect(childrenOf(process.pid)).toContain(child.pid);
    expect(withDescendants(process.pid)).toEqual(expect.arrayContaining([process.pid, child.pid, sleeper]));
  });

  it("sums the RSS of an agent's live processes, its child's child included; a process gone reads 0", async () => {
    const child = spawn("sh", ["-c", "sleep 30 & wait"], { stdio: "ignore" });
    started.push(child);
    await eventually(() => childrenOf(child.pid!).length === 1, "the shell's sleep");
    const [sleeper] = childrenOf(child.pid!);
    const tree = agentProcesses(child.pid!, path.join(work, "no-helpers-here"));
    expect([...tree].sort()).toEqual([child.pid!, sleeper!].sort());
    const [shell, sleep] = [rssMb(child.pid!), rssMb(sleeper!)];
    expect(shell).toBeGreaterThan(0);
    expect(sleep).toBeGreaterThan(0);
    const memory = memoryOf(tree);
    expect(memory.processes).toBe(2);
    expect(memory.rssMb).toBeCloseTo(shell + sleep, 1);
    // Part of it is their own (heap, stack), the rest the files they map.
    expect(memory.anonMb).toBeGreaterThan(0);
    expect(memory.anonMb).toBeLessThan(memory.rssMb);
    child.kill("SIGKILL");
    await eventually(() => !existsSync(`/proc/${child.pid}`), "the shell gone");
    expect(memoryOf([child.pid!])).toEqual({ rssMb: 0, anonMb: 0, processes: 1 });
  });

  it("finds a process run from a folder after its parent is gone (as Codex's daemon outlives its TUI), and stops it", async () => {
    const sleep = path.join(work, "bin", "sleep");
    spawnSync("mkdir", ["-p", path.dirname(sleep)]);
    copyFileSync(spawnSync("sh", ["-c", "command -v sleep"], { encoding: "utf8" }).stdout.trim(), sleep);
    spawnSync("chmod", ["+x", sleep]);
    // The shell starts the copy in the background and exits: the copy is left running on its own.
    spawnSync("sh", ["-c", `'${sleep}' 30 >/dev/null 2>&1 &`]);
    await eventually(() => processesUnder(work).length === 1, "the copy running");
    const [daemon] = processesUnder(work);
    expect(withDescendants(process.pid)).not.toContain(daemon);
    expect(processesUnder(path.join(os.tmpdir(), "no-such-folder"))).toEqual([]);
    await stopProcessesUnder(work);
    expect(processesUnder(work)).toEqual([]);
  });

  it("counts the CPU time of a helper that ran and ended within the span in its parent's", () => {
    const before = processCpuMs(process.pid);
    const ownBefore = cpuMs(process.pid);
    // A child that spends CPU time and is reaped before the span ends.
    spawnSync("sh", ["-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"]);
    const childTime = processCpuMs(process.pid) - before - (cpuMs(process.pid) - ownBefore);
    expect(childTime).toBeGreaterThan(0);
    // Gone: nothing to read, and no error.
    expect(processCpuMs(2 ** 22 + 1)).toBe(0);
  });
});
