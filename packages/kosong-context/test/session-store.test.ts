/**
 * Sessions in a folder as a multi-user service manages them: listed (size,
 * rotations, updated time, first prompt), deleted with their rotations and
 * what the host keeps beside them (the file journal's blobs), and taken
 * over from a live writer (a real child process) once it has been idle
 * longer than the lease; the old writer's next append then fails instead of
 * writing, and its close leaves the new writer's lock alone.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { userMessage } from "@kosong/core";
import { JsonlSessionStore, SessionLockedError } from "@kosong/context";
import { messageRecord } from "@kosong/context/records";
import { assertDistIsFresh, startChild } from "./helpers/child.js";
import { tempDir } from "@kosong/test-support";

const user = (text: string) => messageRecord(userMessage(text));

/** Makes a session's log and lock look untouched for two hours. */
async function ageSession(store: JsonlSessionStore, id: string): Promise<void> {
  const then = new Date(Date.now() - 2 * 3600_000);
  for (const file of [store.logFile(id), `${store.logFile(id)}.lock`]) await utimes(file, then, then);
}

describe("JsonlSessionStore", () => {
  beforeAll(assertDistIsFresh);

  it("lists sessions with size, rotations, updated time and first prompt, newest first", async () => {
    const store = new JsonlSessionStore(await tempDir());
    expect(await store.listSessions()).toEqual([]);
    const a = await store.openLog("alpha");
    await a.append([user("<system>CHECKPOINT 0</system>"), user("Plan the trip to Kyoto")]);
    const later = await a.append([user("and book it")]);
    // A revert: the old log becomes rotation 1, which holds the first prompt.
    await a.truncateAndRotate(later.position, [user("second version")]);
    await a.close();
    const b = await store.openLog("beta");
    await b.append([user("x".repeat(500))]);
    await b.close();
    await utimes(store.logFile("alpha"), new Date(1_000_000), new Date(1_000_000));

    const sessions = await store.listSessions();
    expect(sessions.map((s) => s.id)).toEqual(["beta", "alpha"]);
    const [beta, alpha] = sessions;
    expect(alpha).toMatchObject({ id: "alpha", rotations: 1, firstPrompt: "Plan the trip to Kyoto" });
    expect(alpha!.size).toBe((await readFile(store.logFile("alpha"))).length);
    expect(alpha!.updatedAt).toEqual(new Date(1_000_000));
    expect(beta!.firstPrompt).toBe(`${"x".repeat(197)}...`);
    expect(() => store.sessionDir("../escape")).toThrowError(TypeError);
  });

  it("deletes a session with its rotations and the host's files beside it; a second delete finds nothing", async () => {
    const store = new JsonlSessionStore(await tempDir());
    const log = await store.openLog("gone");
    const hello = await log.append([user("hello")]);
    await log.truncateAndRotate(hello.position);
    await log.close();
    const blobs = path.join(store.sessionDir("gone"), "files", "blobs");
    await mkdir(blobs, { recursive: true });
    await writeFile(path.join(blobs, "abc"), "old file content");
    const kept = await store.openLog("kept");
    await kept.append([user("stay")]);

    expect(await store.deleteSession("gone")).toBe(true);
    expect(existsSync(store.sessionDir("gone"))).toBe(false);
    expect((await store.listSessions()).map((s) => s.id)).toEqual(["kept"]);
    expect(await store.deleteSession("gone")).toBe(false);
    // A session open in this process is not deleted under its writer.
    await expect(store.deleteSession("kept")).rejects.toThrowError(SessionLockedError);
    await kept.close();
    // `when` is asked under the lock (a writer is refused meanwhile); false keeps the session whole.
    let writerMeanwhile: unknown = null;
    const when = async () => {
      writerMeanwhile = await store.openLog("kept").catch((error: unknown) => error);
      return false;
    };
    expect(await store.deleteSession("kept", { when })).toBe(false);
    expect(writerMeanwhile).toBeInstanceOf(SessionLockedError);
    expect((await store.listSessions()).map((s) => s.id)).toEqual(["kept"]);
    expect(existsSync(`${store.logFile("kept")}.lock`)).toBe(false);
  });

  it("takes a session over from a live writer idle past the lease; the old writer's next append fails and its close keeps the new lock", async () => {
    const store = new JsonlSessionStore(await tempDir(), { leaseMs: 60_000 });
    await (await store.openLog("busy")).close();
    const child = startChild(["hold-append", store.logFile("busy")]);
    try {
      await child.waitFor((line) => line === "ready");
      // Written a moment ago: the holder is within its lease.
      const refused = await store.openLog("busy").catch((error: unknown) => error);
      expect(SessionLockedError.isInstance(refused)).toBe(true);
      expect((refused as SessionLockedError).owner.pid).toBe(child.process.pid);
      expect((refused as SessionLockedError).message).toMatch(/lock file .*busy.*context\.jsonl\.lock; it can be taken over once idle for 60000 ms/);
      await expect(store.deleteSession("busy")).rejects.toThrowError(SessionLockedError);

      await ageSession(store, "busy");
      const taken = await store.openLog("busy");
      await taken.append([user("the user moved here")]);
      child.process.stdin.write("append\n");
      expect(await child.waitFor((line) => line !== "ready")).toBe("ContextFileChangedError");
      child.process.stdin.end();
      await child.waitFor((line) => line === "closed");
      // The old writer's close left the new writer's lock: a third opener is refused.
      expect(existsSync(`${store.logFile("busy")}.lock`)).toBe(true);
      await expect(new JsonlSessionStore(store.dir).openLog("busy")).rejects.toThrowError(SessionLockedError);
      await taken.close();
    } finally {
      child.process.kill();
    }
  });

  it("without a lease, a live idle writer keeps its session", async () => {
    const store = new JsonlSessionStore(await tempDir());
    await (await store.openLog("mine")).close();
    const child = startChild(["hold-append", store.logFile("mine")]);
    try {
      await child.waitFor((line) => line === "ready");
      await ageSession(store, "mine");
      await expect(store.openLog("mine")).rejects.toThrowError(SessionLockedError);
    } finally {
      child.process.stdin.end();
      await child.exited;
    }
  });
});
