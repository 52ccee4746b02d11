/**
 * An agent's processes as `/proc` shows them (Linux): its children and
 * descendants, the helpers it left running from a folder of its own (Codex's
 * app-server daemon), their CPU time and resident memory, and stopping those
 * helpers. Reads fail quietly where a process ended meanwhile.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";

/** The ids of the running processes. */
function processIds(): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** The parent of `pid` (`/proc/PID/stat`'s fourth field), or null once it is gone. */
function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null;
  }
}

/** The children of `pid`. */
export function childrenOf(pid: number): number[] {
  return processIds().filter((candidate) => parentOf(candidate) === pid);
}

/** `pid` and its descendants. */
export function withDescendants(pid: number): number[] {
  return [pid, ...childrenOf(pid).flatMap(withDescendants)];
}

/** The agent `pid`'s processes: its own, those running from its `home` ({@link processesUnder}), and their descendants. */
export function agentProcesses(pid: number, home: string): Set<number> {
  return new Set([pid, ...processesUnder(home)].flatMap(withDescendants));
}

/** Processes whose executable lies under `folder` (helpers an agent installed and started there, such as Codex's daemon). */
export function processesUnder(folder: string): number[] {
  return processIds().filter((pid) => {
    try {
      return readlinkSync(`/proc/${pid}/exe`).startsWith(folder + path.sep);
    } catch {
      return false;
    }
  });
}

/** Stops (SIGTERM) the processes left running under `folder` and resolves once they are gone, or after `timeoutMs` (they may write their state as they stop). */
export async function stopProcessesUnder(folder: string, timeoutMs = 5_000): Promise<void> {
  const pids = processesUnder(folder);
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // Gone meanwhile.
    }
  }
  const until = performance.now() + timeoutMs;
  while (pids.some((pid) => existsSync(`/proc/${pid}`)) && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** The CPU time one thread of `pid` spent so far, in ms (`/proc/PID/task/TID/schedstat`: ns on a CPU first); NaN when not read. */
export function threadCpuMs(pid: number, tid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  } catch {
    return Number.NaN;
  }
}

/** The CPU time all threads of `pid` spent so far, in ms; 0 once it is gone (a thread that ended took its time with it). */
export function cpuMs(pid: number): number {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  return tasks.map((task) => threadCpuMs(pid, Number(task))).reduce((sum, ms) => sum + (Number.isFinite(ms) ? ms : 0), 0);
}

/** Clock ticks per second of `/proc/PID/stat`'s CPU times (100 where getconf cannot say). */
function clockTicks(): number {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
}
let ticksPerSecond: number | undefined;

/**
 * The CPU time of `pid` so far, in ms: all its threads ({@link cpuMs}), and the children it has reaped (`/proc/PID/stat`'s
 * cutime + cstime, in clock ticks: a helper that ran and ended within a span is counted there); 0 once it is gone.
 */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [cutime, cstime] = stat.slice(stat.lastIndexOf(")") + 2).split(" ").slice(13, 15).map(Number);
    return cpuMs(pid) + ((cutime! + cstime!) * 1000) / (ticksPerSecond ??= clockTicks());
  } catch {
    return 0;
  }
}

/** The resident memory of `pid` from `/proc/PID/status`, in MB: all of it (VmRSS), and its anonymous part (RssAnon); 0 once it is gone. */
function residentMb(pid: number): { rss: number; anon: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0) / 1024;
    return { rss: kb("VmRSS"), anon: kb("RssAnon") };
  } catch {
    return { rss: 0, anon: 0 };
  }
}

/** The resident set size of `pid` (`/proc/PID/status`'s VmRSS), in MB; 0 once it is gone. */
export function rssMb(pid: number): number {
  return residentMb(pid).rss;
}

/** The memory of a set of processes, in MB, each figure summed over them. */
export interface ProcessesMemory {
  /** RSS: a page two of them share (the same binary's code, say) counts twice, as `ps` adds up. */
  rssMb: number;
  /** The anonymous part of the RSS (heaps, stacks: memory no file backs), which processes that do not fork each other share none of. */
  anonMb: number;
  /** How many processes were read. */
  processes: number;
}

/** The memory of `pids` together ({@link ProcessesMemory}). */
export function memoryOf(pids: Iterable<number>): ProcessesMemory {
  const memory = { rssMb: 0, anonMb: 0, processes: 0 };
  for (const pid of pids) {
    const { rss, anon } = residentMb(pid);
    memory.rssMb += rss;
    memory.anonMb += anon;
    memory.processes++;
  }
  return memory;
}
