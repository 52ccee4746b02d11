/**
 * Background jobs: commands the Shell tool started with `run_in_background`
 * (a dev server, a long test run). Each runs in its own process group (in
 * the Shell's sandbox when there is one), its output (stdout and stderr
 * interleaved) goes to `<folder>/<id>.log` in the session folder, capped at
 * {@link BackgroundJobsOptions.maxLogBytes}; `TaskOutput` reads what is new,
 * `TaskStop` ends one, and every job ends with the session (`closeAll`, and
 * a watchdog's SIGKILL of its group should kosong end without it, a crash
 * or SIGKILL included: see `process-group-guard.ts`). When a
 * job ends, a notice waits for the model ({@link takeNotices}).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import path from "node:path";
import { guardProcessGroup, type ProcessGroupGuard } from "../tools/process-group-guard.js";
import { anyAliveInGroup, descendants, groupMembers, killTree, type ProcessRef, signalProcesses, stillRunning } from "./process-tree.js";

/** What a job is doing. */
export type JobState = "running" | "exited" | "stopped" | "failed";

/** A program ready to spawn (the Shell's `bash -c`, maybe wrapped in the sandbox). */
export interface JobCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
}

/** A background job as listed. */
export interface JobInfo {
  id: string;
  /** The command as the model gave it. */
  command: string;
  state: JobState;
  /** The exit code, or null while running or when ended by a signal. */
  exitCode: number | null;
  /** The signal that ended it, or null. */
  signal: string | null;
  /** Bytes of output it wrote (also those past the cap). */
  outputBytes: number;
  /** The log file in the session folder. */
  logFile: string;
  startedAt: Date;
  endedAt: Date | null;
}

/** New output of a job since the last read, and its state. */
export interface JobOutput {
  job: JobInfo;
  text: string;
  /** True when the log was capped: output past the cap is not kept. */
  capped: boolean;
}

/** Options of {@link BackgroundJobs}. */
export interface BackgroundJobsOptions {
  /** The folder of the logs (the session's `jobs/`). */
  dir: string;
  /** Output kept per job (default 1 MiB); the rest is counted, not kept. */
  maxLogBytes?: number;
  /** Jobs running at once at most (default 8). */
  maxRunning?: number;
  /** How long a stopped job has after SIGTERM before SIGKILL (default 2 s). */
  graceMs?: number;
}

interface Job {
  info: JobInfo;
  child: ChildProcess;
  log: WriteStream;
  kept: number;
  readOffset: number;
  ended: Promise<void>;
  stopping: boolean;
  /** Processes the job left in its group when its first process ended (`server >/dev/null &`); they end with the session. */
  leftovers: ProcessRef[];
  /** The watchdog of the job's group, kept while leftovers may run. */
  guard: ProcessGroupGuard | null;
}

/** The background jobs of one session. */
export class BackgroundJobs {
  readonly #dir: string;
  readonly #maxLogBytes: number;
  readonly #maxRunning: number;
  readonly #graceMs: number;
  readonly #jobs = new Map<string, Job>();
  readonly #notices: { id: string; text: string }[] = [];
  readonly #listeners = new Set<(job: JobInfo) => void>();
  #next = 1;
  #closed = false;

  constructor(options: BackgroundJobsOptions) {
    this.#dir = options.dir;
    this.#maxLogBytes = options.maxLogBytes ?? 1024 * 1024;
    this.#maxRunning = options.maxRunning ?? 8;
    this.#graceMs = options.graceMs ?? 2000;
  }

  /** Starts `spawned` in `cwd` as a new job; throws when the session is closing or too many jobs run. */
  async start(command: string, spawned: JobCommand, cwd: string): Promise<JobInfo> {
    if (this.#closed) throw new Error("the session is ending: no new background job");
    const running = this.list().filter((j) => j.state === "running").length;
    if (running >= this.#maxRunning) throw new Error(`${running} background jobs are running (at most ${this.#maxRunning}): stop one with TaskStop first`);
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    const id = `job-${this.#next++}`;
    const logFile = path.join(this.#dir, `${id}.log`);
    const log = createWriteStream(logFile, { mode: 0o600, flags: "w" });
    await new Promise<void>((resolve, reject) => log.once("open", () => resolve()).once("error", reject));
    const child = spawn(spawned.file, spawned.args, { cwd, env: spawned.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const guard = child.pid === undefined ? null : guardProcessGroup(child.pid);
    const info: JobInfo = { id, command, state: "running", exitCode: null, signal: null, outputBytes: 0, logFile, startedAt: new Date(), endedAt: null };
    const job: Job = { info, child, log, kept: 0, readOffset: 0, ended: Promise.resolve(), stopping: false, leftovers: [], guard };
    const write = (chunk: Buffer) => {
      info.outputBytes += chunk.length;
      const room = this.#maxLogBytes - job.kept;
      if (room <= 0) return;
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
      job.kept += part.length;
      log.write(part);
    };
    child.stdout!.on("data", write);
    child.stderr!.on("data", write);
    job.ended = new Promise<void>((resolve) => {
      const finish = (code: number | null, signal: NodeJS.Signals | null, failure?: Error) => {
        if (info.state !== "running") return;
        info.state = failure ? "failed" : job.stopping ? "stopped" : "exited";
        info.exitCode = code;
        info.signal = signal;
        info.endedAt = new Date();
        job.leftovers = child.pid === undefined ? [] : groupMembers(child.pid);
        if (job.leftovers.length === 0) job.guard?.release();
        if (failure) log.write(`\n[could not start: ${failure.message}]\n`);
        log.end(() => resolve());
        if (!this.#closed) this.#notices.push({ id: info.id, text: endNotice(info) });
        for (const listener of this.#listeners) listener(info);
      };
      child.once("error", (error) => finish(null, null, error));
      child.once("close", (code, signal) => finish(code, signal));
    });
    this.#jobs.set(id, job);
    return { ...info };
  }

  /** Every job of the session, oldest first. */
  list(): JobInfo[] {
    return [...this.#jobs.values()].map((j) => ({ ...j.info }));
  }

  /** The job `id`, or null. */
  get(id: string): JobInfo | null {
    const job = this.#jobs.get(id);
    return job ? { ...job.info } : null;
  }

  /**
   * Output of job `id` since the last read (at most `maxChars`), after
   * waiting up to `waitMs` for new output or the job's end; null for an unknown id.
   */
  async read(id: string, options: { waitMs?: number; maxChars?: number } = {}): Promise<JobOutput | null> {
    const job = this.#jobs.get(id);
    if (!job) return null;
    if (options.waitMs && job.info.state === "running" && job.kept === job.readOffset) await this.#newOutputOrEnd(job, options.waitMs);
    // What was written so far reaches the file first (a write's callback runs after the earlier ones).
    if (job.log.writableEnded) await job.ended;
    else await new Promise<void>((resolve) => job.log.write("", () => resolve()));
    const maxBytes = (options.maxChars ?? 30_000) * 4;
    const length = Math.min(job.kept - job.readOffset, maxBytes);
    let text = "";
    if (length > 0) {
      const handle = await open(job.info.logFile, "r");
      try {
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, job.readOffset);
        const decoded = decodeAtMost(buffer.subarray(0, bytesRead), options.maxChars ?? 30_000);
        text = decoded.text;
        job.readOffset += decoded.bytes;
      } finally {
        await handle.close();
      }
    }
    // The model has now seen the job's end: no separate notice for it.
    if (job.info.state !== "running") this.#dropNotice(job.info.id);
    return { job: { ...job.info }, text, capped: job.kept >= this.#maxLogBytes && job.info.outputBytes > job.kept };
  }

  /** Stops job `id`: SIGTERM to its process group, SIGKILL after the grace time; resolves once it ended. Null for an unknown id. */
  async stop(id: string): Promise<JobInfo | null> {
    const job = this.#jobs.get(id);
    if (!job) return null;
    if (job.info.state === "running") {
      job.stopping = true;
      await this.#end(job);
      this.#dropNotice(id);
    }
    return { ...job.info };
  }

  /** Notices of jobs that ended since the last call (each once), for the model. */
  takeNotices(): string[] {
    return this.#notices.splice(0).map((notice) => notice.text);
  }

  /** Calls `listener` whenever a job ends; returns how to stop listening. */
  onEnd(listener: (job: JobInfo) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Ends every job (the session ends): SIGTERM, then SIGKILL after the grace time. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#jobs.values()].map((job) => {
      if (job.info.state === "running") job.stopping = true;
      return this.#end(job);
    }));
  }

  /**
   * SIGTERM to the job's group; after the grace time SIGKILL to the group
   * and to every process found below the job (also those that left the
   * group); after one more grace time the output pipes are let go, should a
   * process out of reach still hold them. Never waits longer than that.
   */
  async #end(job: Job): Promise<void> {
    if (job.info.state !== "running") {
      this.#endLeftovers(job);
      return job.ended;
    }
    // Taken first: once the job's first process dies, its children are reparented out of sight.
    const below = job.child.pid === undefined ? [] : descendants(job.child.pid);
    const killAll = () => {
      if (job.child.pid !== undefined) killTree(job.child.pid, below);
    };
    killGroup(job.child, "SIGTERM");
    if (!(await settlesWithin(job.ended, this.#graceMs))) {
      killAll();
      if (!(await settlesWithin(job.ended, this.#graceMs))) {
        job.child.stdout?.destroy();
        job.child.stderr?.destroy();
      }
    }
    await job.ended;
    // Whatever the group left behind (a child that ignored SIGTERM) goes too.
    killAll();
  }

  /**
   * SIGKILLs what an ended job left in its group. The group is signalled only
   * while one of the processes seen in it at the job's end still runs in it:
   * a group with a living member keeps its id, so the id is not someone
   * else's (one that left it with `setsid` does not hold the id; it is
   * signalled on its own, by pid and start time, with what runs below it).
   */
  #endLeftovers(job: Job): void {
    const pgid = job.child.pid;
    if (pgid !== undefined && anyAliveInGroup(job.leftovers, pgid)) {
      try {
        process.kill(-pgid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
    }
    // Below living leftovers only: a dead one's pid may be someone else's now.
    const living = stillRunning(job.leftovers);
    signalProcesses([...living, ...living.flatMap((ref) => descendants(ref.pid))], "SIGKILL");
    job.leftovers = [];
    job.guard?.release();
  }

  #newOutputOrEnd(job: Job, waitMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        job.child.stdout?.off("data", done);
        job.child.stderr?.off("data", done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      job.child.stdout?.once("data", done);
      job.child.stderr?.once("data", done);
      void job.ended.then(done);
    });
  }

  #dropNotice(id: string): void {
    const index = this.#notices.findIndex((notice) => notice.id === id);
    if (index >= 0) this.#notices.splice(index, 1);
  }
}

/** The line the model reads when a job ended on its own. */
function endNotice(info: JobInfo): string {
  const how = info.state === "failed" ? "could not start" : info.exitCode !== null ? `exited with code ${info.exitCode}` : `was ended by ${info.signal}`;
  return `<system>Background job ${info.id} ${how}: ${oneLine(info.command)}. Read its last output with TaskOutput.</system>`;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * The text of the longest start of `bytes` that decodes to at most
 * `maxChars` UTF-16 units, and how many bytes that is. Whole characters
 * only: a multi-byte character cut at the end waits for the next read. The
 * bytes are counted as read, not re-encoded from the text (a byte that is
 * not UTF-8 reads as one U+FFFD, which re-encodes to three bytes).
 */
function decodeAtMost(bytes: Buffer, maxChars: number): { text: string; bytes: number } {
  const decode = (end: number) => {
    const whole = wholeUtf8(bytes.subarray(0, end));
    return { text: whole.toString("utf8"), bytes: whole.length };
  };
  const all = decode(bytes.length);
  if (all.text.length <= maxChars) return all;
  // A byte decodes to at most one unit, so the text grows with the bytes: the longest start that fits is found by halving.
  let [low, high] = [0, bytes.length];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (decode(middle).text.length <= maxChars) low = middle;
    else high = middle - 1;
  }
  return decode(low);
}

/** `bytes` without a trailing incomplete UTF-8 sequence. */
function wholeUtf8(bytes: Buffer): Buffer {
  let end = bytes.length;
  let back = 0;
  while (end - back - 1 >= 0 && back < 4 && (bytes[end - back - 1]! & 0xc0) === 0x80) back++;
  const lead = bytes[end - back - 1];
  if (lead === undefined) return bytes;
  const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (size > back + 1) end = end - back - 1;
  return bytes.subarray(0, end);
}
