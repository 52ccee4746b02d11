/**
 * The processes below one process, read from `/proc` (Linux; elsewhere
 * none are found). A job's processes may leave its process group (`setsid`)
 * or be reparented once their parent dies, so the tree is taken before a
 * job is signalled. Each process is kept with its start time, so that a
 * later process given the same pid is never signalled by mistake.
 */
import { readdirSync, readFileSync } from "node:fs";

/** A process as seen once: its pid and its start time (in clock ticks since boot). */
export interface ProcessRef {
  pid: number;
  start: string;
}

/** The processes below `root` (children, their children, ...), as they are now. */
export function descendants(root: number): ProcessRef[] {
  const children = new Map<number, ProcessRef[]>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const seen = readStat(Number(entry));
    if (!seen) continue;
    const siblings = children.get(seen.ppid);
    const ref = { pid: Number(entry), start: seen.start };
    if (siblings) siblings.push(ref);
    else children.set(seen.ppid, [ref]);
  }
  const found: ProcessRef[] = [];
  const queue = [root];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** The processes in process group `pgid` now (its leader included, when alive). */
export function groupMembers(pgid: number): ProcessRef[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: ProcessRef[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const seen = readStat(Number(entry));
    if (seen?.pgrp === pgid) found.push({ pid: Number(entry), start: seen.start });
  }
  return found;
}

/** Those of `processes` still running (same pid, same start time). */
export function stillRunning(processes: readonly ProcessRef[]): ProcessRef[] {
  return processes.filter(({ pid, start }) => readStat(pid)?.start === start);
}

/**
 * Whether any of `processes` still runs (same pid, same start time) inside
 * process group `pgid`: then the group's id cannot have been reused. A
 * process that left the group (`setsid`, as a daemon does) does not count:
 * once the group is empty its id is free for an unrelated process group.
 */
export function anyAliveInGroup(processes: readonly ProcessRef[], pgid: number): boolean {
  return processes.some(({ pid, start }) => {
    const seen = readStat(pid);
    return seen?.start === start && seen.pgrp === pgid;
  });
}

/** Sends `signal` to each of `processes` still running (same pid, same start time). */
export function signalProcesses(processes: readonly ProcessRef[], signal: NodeJS.Signals): void {
  for (const { pid, start } of processes) {
    if (readStat(pid)?.start !== start) continue;
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile
    }
  }
}

/**
 * SIGKILLs process group `root` (a child spawned detached leads its own
 * group) and every process below `root`: those found now and those in
 * `known` (taken before the first signal, when the tree was still whole).
 */
export function killTree(root: number, known: readonly ProcessRef[] = []): void {
  const now = descendants(root);
  try {
    process.kill(-root, "SIGKILL");
  } catch {
    // already gone
  }
  signalProcesses([...known, ...now], "SIGKILL");
}

/** The parent, process group and start time of `pid` from `/proc/<pid>/stat`, or null when it is gone. */
function readStat(pid: number): { ppid: number; pgrp: number; start: string } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The fields after the command's name (which may hold spaces and parentheses): state, ppid, pgrp, ..., starttime (22nd field).
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(fields[1]), pgrp: Number(fields[2]), start: fields[19] ?? "" };
  } catch {
    return null;
  }
}
