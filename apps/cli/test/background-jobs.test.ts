import { readFileSync } from "node:fs";
import { stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BackgroundJobs } from "../src/jobs/background-jobs.js";
import { processesWith } from "./e2e/dev-server.js";
import { endsOrHangs } from "./ends-or-hangs.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();
const bash = (command: string) => ({ file: "bash", args: ["-c", command], env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });

describe("BackgroundJobs", () => {
  it("keeps at most maxLogBytes of a job's output, counts the rest, and reads only what is new", async () => {
    const dir = await tempDir();
    const jobs = new BackgroundJobs({ dir: path.join(dir, "jobs"), maxLogBytes: 1000 });
    const job = await jobs.start("yes", bash("yes | head -c 100000"), dir);
    const first = await jobs.read(job.id, { waitMs: 5000 });
    while (jobs.get(job.id)!.state === "running") await jobs.read(job.id, { waitMs: 1000 });
    const rest = await jobs.read(job.id);
    expect((first!.text + rest!.text).length).toBeLessThanOrEqual(1000);
    expect(rest!.capped).toBe(true);
    expect(rest!.job).toMatchObject({ state: "exited", exitCode: 0, outputBytes: 100000 });
    expect((await stat(job.logFile)).size).toBe(1000);
    expect((await jobs.read(job.id))!.text).toBe("");
    // The model read the end through TaskOutput: no separate notice.
    expect(jobs.takeNotices()).toEqual([]);
  });

  it("gives one notice per job that ended unread, none for a stopped one, and closeAll ends the rest", async () => {
    const dir = await tempDir();
    const jobs = new BackgroundJobs({ dir, graceMs: 200 });
    const quick = await jobs.start("exit 7", bash("exit 7"), dir);
    const stubborn = await jobs.start("trap '' TERM; sleep 30", bash("trap '' TERM; sleep 30"), dir);
    const other = await jobs.start("sleep 30", bash("sleep 30"), dir);
    // Checked and listened for in one tick: the end cannot slip between.
    if (jobs.get(quick.id)!.state === "running") await new Promise<void>((resolve) => jobs.onEnd((j) => j.id === quick.id && resolve()));
    expect(jobs.takeNotices()).toEqual([expect.stringContaining(`Background job ${quick.id} exited with code 7`)]);
    expect(jobs.takeNotices()).toEqual([]);
    // SIGTERM ignored: SIGKILL after the grace time.
    expect(await jobs.stop(stubborn.id)).toMatchObject({ state: "stopped", signal: "SIGKILL" });
    await jobs.closeAll();
    expect(jobs.get(other.id)).toMatchObject({ state: "stopped", signal: "SIGTERM" });
    expect(jobs.takeNotices()).toEqual([]);
    await expect(jobs.start("true", bash("true"), dir)).rejects.toThrow(/session is ending/);
  });

  it("closeAll ends a process that left the job's group, and does not wait forever on one out of reach", async () => {
    const dir = await tempDir();
    const jobs = new BackgroundJobs({ dir, graceMs: 200 });
    const node = (marker: string) => `${process.execPath} -e 'setInterval(() => {}, 1000)' ${marker}`;
    const [below, away] = [`kosong-left-group-${process.pid}-${Date.now()}`, `kosong-away-${process.pid}-${Date.now()}`];
    try {
      // One in a session of its own below the job's shell; one whose parent is gone (reparented out of the job).
      await jobs.start("setsid", bash(`setsid ${node(below)} & sleep 30`), dir);
      await jobs.start("orphan", bash(`(setsid ${node(away)} &); sleep 30`), dir);
      const started = (marker: string) => processesWith(marker).some((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith(process.execPath));
      for (let i = 0; i < 200 && !(started(below) && started(away)); i++) await new Promise((r) => setTimeout(r, 25));
      expect(await endsOrHangs(jobs.closeAll())).toBe("ended");
      expect(processesWith(below)).toEqual([]);
      expect(jobs.list().map((j) => j.state)).toEqual(["stopped", "stopped"]);
    } finally {
      for (const pid of [...processesWith(below), ...processesWith(away)]) process.kill(Number(pid), "SIGKILL");
    }
  }, 20_000);

  it("closeAll ends what a job left running in its group after its shell exited (`server >/dev/null &`)", async () => {
    const dir = await tempDir();
    const jobs = new BackgroundJobs({ dir, graceMs: 200 });
    const marker = `kosong-leftover-${process.pid}-${Date.now()}`;
    try {
      const job = await jobs.start("daemon", bash(`${process.execPath} -e 'setInterval(() => {}, 1000)' ${marker} >/dev/null 2>&1 & echo started`), dir);
      if (jobs.get(job.id)!.state === "running") await new Promise<void>((resolve) => jobs.onEnd(() => resolve()));
      expect(jobs.get(job.id)).toMatchObject({ state: "exited", exitCode: 0 });
      expect(processesWith(marker)).not.toEqual([]);
      expect(await endsOrHangs(jobs.closeAll())).toBe("ended");
      for (let i = 0; i < 40 && processesWith(marker).length > 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(processesWith(marker)).toEqual([]);
      // What it wrote before is still there.
      expect(readFileSync(job.logFile, "utf8")).toBe("started\n");
    } finally {
      for (const pid of processesWith(marker)) process.kill(Number(pid), "SIGKILL");
    }
  }, 20_000);

  it("reads output that is not UTF-8 (bytes 0xff 0xfe) and cut reads without losing what follows", async () => {
    const dir = await tempDir();
    const jobs = new BackgroundJobs({ dir: path.join(dir, "jobs") });
    const job = await jobs.start("binary", bash(`printf 'a\\xff\\xfeb\\xf0\\x9f\\x98\\x80c'; while [ ! -e go ]; do sleep 0.02; done; printf 'hi\\xf0\\x9f\\x98\\x80-world\\n'`), dir);
    let text = "";
    while (!text.includes("c")) text += (await jobs.read(job.id, { waitMs: 5000 }))!.text;
    await writeFile(path.join(dir, "go"), "");
    // Read three characters at a time: a cut falls inside the emoji's surrogate pair too.
    for (let part = "?"; part !== "" || jobs.get(job.id)!.state === "running"; text += part) part = (await jobs.read(job.id, { waitMs: 1000, maxChars: 3 }))!.text;
    expect(text).toBe("a\ufffd\ufffdb\u{1f600}chi\u{1f600}-world\n");
  }, 20_000);
});
