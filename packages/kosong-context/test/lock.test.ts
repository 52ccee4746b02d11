import { existsSync } from "node:fs";
import { readFile, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { userMessage } from "@kosong/core";
import { JsonlContextFile, JsonlLinearStorage, SessionLockedError } from "@kosong/context";
import { messageRecord } from "@kosong/context/records";
import { assertDistIsFresh, startChild, type Child } from "./helpers/child.js";
import { seededRandom } from "./helpers/random.js";
import { tempDir } from "@kosong/test-support";

async function sessionFile(): Promise<string> {
  return path.join(await tempDir(), "context.jsonl");
}

describe("one writer per session file", () => {
  beforeAll(assertDistIsFresh);

  it("a second open in the same process is refused until the first is closed", async () => {
    const file = await sessionFile();
    const first = await JsonlContextFile.open(file);
    const error = await JsonlContextFile.open(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionLockedError);
    expect((error as SessionLockedError).message).toContain("another open handle in this process");
    await first.close();
    const second = await JsonlContextFile.open(file);
    await second.close();
  });

  it("of two concurrent opens in the same process, exactly one wins", async () => {
    const file = await sessionFile();
    const results = await Promise.allSettled([JsonlContextFile.open(file), JsonlContextFile.open(file), JsonlContextFile.open(file)]);
    const won = results.filter((r) => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(SessionLockedError);
    await (won[0] as PromiseFulfilledResult<JsonlContextFile>).value.close();
  });

  it("a live process holding the session gives a clear error naming its pid; released when it closes", async () => {
    const file = await sessionFile();
    const child = startChild(["hold", file]);
    await child.waitFor((l) => l === "ready");
    const lock = JSON.parse(await readFile(`${file}.lock`, "utf8")) as { pid: number; hostname: string };
    expect(lock).toMatchObject({ pid: child.process.pid, hostname: os.hostname() });

    const storage = new JsonlLinearStorage(file);
    const error = await storage.restore().catch((e: unknown) => e);
    expect(SessionLockedError.isInstance(error)).toBe(true);
    expect((error as SessionLockedError).owner.pid).toBe(child.process.pid);
    expect((error as Error).message).toBe(`${file} is in use by process ${child.process.pid} (lock file ${file}.lock)`);
    await expect(storage.appendMessage(userMessage("x"))).rejects.toBeInstanceOf(SessionLockedError);

    child.process.stdin.end();
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(`${file}.lock`)).toBe(false);
    await storage.restore();
    await storage.appendMessage(userMessage("now mine"));
    await storage.close();
  });

  it("takes over a stale lock left by a killed process", async () => {
    const file = await sessionFile();
    const child = startChild(["hold", file]);
    await child.waitFor((l) => l === "ready");
    child.process.kill("SIGKILL");
    await child.exited;
    expect(existsSync(`${file}.lock`)).toBe(true);
    const ctx = await JsonlContextFile.open(file);
    expect(JSON.parse(await readFile(`${file}.lock`, "utf8"))).toMatchObject({ pid: process.pid });
    await ctx.append([messageRecord(userMessage("recovered"))]);
    await ctx.close();
  });

  it.runIf(process.platform === "linux")("takes over a lock whose pid now belongs to another, younger process", async () => {
    const file = await sessionFile();
    // The parent process is alive, but it is not the process that wrote this lock (another start time).
    await writeFile(`${file}.lock`, JSON.stringify({ pid: process.ppid, hostname: os.hostname(), startTime: "1" }));
    const ctx = await JsonlContextFile.open(file);
    expect(JSON.parse(await readFile(`${file}.lock`, "utf8"))).toMatchObject({ pid: process.pid });
    await ctx.close();
  });

  it("keeps a lock held on another host (its pid cannot be checked from here)", async () => {
    const file = await sessionFile();
    await writeFile(`${file}.lock`, JSON.stringify({ pid: 999_999_999, hostname: "some-other-host", startTime: null }));
    const error = await JsonlContextFile.open(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionLockedError);
    expect((error as SessionLockedError).owner).toEqual({ pid: 999_999_999, hostname: "some-other-host" });
    expect((error as Error).message).toContain("process 999999999 on some-other-host");
  });

  it("takes over an unreadable lock file once it is old", async () => {
    const file = await sessionFile();
    await writeFile(`${file}.lock`, "");
    const past = new Date(Date.now() - 60_000);
    await utimes(`${file}.lock`, past, past);
    const ctx = await JsonlContextFile.open(file);
    await ctx.close();
  });

  it("a process that exits without closing leaves no lock behind", async () => {
    const file = await sessionFile();
    const child = startChild(["exit-without-close", file]);
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect(existsSync(file)).toBe(true);
  });

  it("lock: false opens without a lock", async () => {
    const file = await sessionFile();
    const locked = await JsonlContextFile.open(file);
    const unlocked = await JsonlContextFile.open(file, { lock: false });
    await unlocked.close();
    await locked.close();
  });

  describe("two processes over one dead lock", () => {
    const seed = Number(process.env.KOSONG_LOCK_SEED ?? Date.now() % 1_000_000);
    const TRIALS = 150;

    it(`exactly one takes it over, in every trial (seed ${seed})`, async () => {
      const rand = seededRandom(seed);
      const dir = await tempDir();
      const racers = [startChild(["race", "-"]), startChild(["race", "-"])];
      const reply = (child: Child, target: string) => child.waitFor((l) => l === `won ${target}` || l === `lost ${target}`);
      try {
        await Promise.all(racers.map((child) => child.waitFor((l) => l === "ready")));
        for (let trial = 0; trial < TRIALS; trial += 1) {
          const file = path.join(dir, `context-${trial}.jsonl`);
          // A lock left by a process that no longer exists (a pid above any pid_max, this host).
          await writeFile(`${file}.lock`, JSON.stringify({ pid: 4_194_304 + trial, hostname: os.hostname(), startTime: "1" }));
          // Start offsets within ~1 ms of each other, so the takeovers overlap at every step.
          for (const child of racers) child.process.stdin.write(`go ${file} ${Math.floor(rand() * 1000)}\n`);
          const results = await Promise.all(racers.map((child) => reply(child, file)));
          const winners = results.flatMap((line, i) => (line.startsWith("won ") ? [racers[i]!] : []));
          expect(results, `trial ${trial}, seed ${seed}`).toHaveLength(2);
          expect(winners, `trial ${trial}, seed ${seed}: ${results.join(", ")}`).toHaveLength(1);
          const lock = JSON.parse(await readFile(`${file}.lock`, "utf8")) as { pid: number };
          expect(lock.pid, `trial ${trial}`).toBe(winners[0]!.process.pid);
          winners[0]!.process.stdin.write(`release ${file}\n`);
          await winners[0]!.waitFor((l) => l === `released ${file}`);
        }
      } finally {
        for (const child of racers) child.process.stdin.end();
        await Promise.all(racers.map((child) => child.exited));
      }
    }, 120_000);
  });
});
