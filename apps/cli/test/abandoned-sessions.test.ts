/**
 * The folders of sessions killed before their first prompt
 * (`removeAbandonedSessions`, run by `kosong sessions` and every prune,
 * start-up retention included): which go and which must stay. Real files,
 * and a lock left by a real process that has exited.
 */
import { spawn } from "node:child_process";
import { appendFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pruneSessions } from "../src/sessions/session-retention.js";
import { createSession, removeAbandonedSessions, sessionsDir } from "../src/sessions/session-store.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

/** The pid of a real process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid!;
}

/** A session of `home` killed at its first prompt: its system prompt stored, its lock left by a process that is gone (or `lock` as given). */
async function abandonedSession(home: string, lock?: string) {
  const session = await createSession(home, "/work/a");
  await writeFile(session.contextFile, `${JSON.stringify({ role: "_system_prompt", content: "You are kosong." })}\n`);
  await writeFile(`${session.contextFile}.lock`, lock ?? `${JSON.stringify({ pid: await deadPid(), hostname: null })}\n`);
  return session;
}

describe("sessions killed before their first prompt", () => {
  it("go, once the process that made them is gone", async () => {
    const home = await tempDir();
    await abandonedSession(home);
    expect(await removeAbandonedSessions(home)).toBe(1);
    expect(await readdir(sessionsDir(home))).toEqual([]);
  });

  it("are not removed by start-up retention when it is the session being opened (--session, ACP load)", async () => {
    const home = await tempDir();
    const opened = await abandonedSession(home);
    await pruneSessions(home, { olderThanMs: null, keep: null }, { dryRun: false, spare: new Set([opened.id]), storeOnly: false });
    expect(await readdir(sessionsDir(home))).toEqual([opened.id]);
  });

  it("are not removed when the conversation got a prompt after they were judged unused (checked again under the lock)", { timeout: 10_000 }, async () => {
    const home = await tempDir();
    // A lock being written (empty, just made): the removal waits for it to turn stale, long after it judged the session unused.
    const session = await abandonedSession(home, "");
    const removing = removeAbandonedSessions(home);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await appendFile(session.contextFile, `${JSON.stringify({ role: "user", content: "fix the flaky test" })}\n`);
    expect(await removing).toBe(0);
    expect(await readdir(sessionsDir(home))).toEqual([session.id]);
  });
});
