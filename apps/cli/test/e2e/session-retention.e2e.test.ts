/**
 * `kosong sessions prune` and the config's `session_retention`, through the
 * built binary on real session folders: exactly the sessions the policy
 * selects go, whole (rotations, file-journal blobs, subagent contexts),
 * and `--dry-run` touches nothing.
 */
import { mkdir, readdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { JsonlSessionStore } from "@kosong/context";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { ensureBuilt, runKosong } from "./kosong-binary.js";

const tempDir = useTempDirs();
const day = 86_400_000;

/** Runs a real session through the binary, then fills its folder as a long session would and ages it by `ageDays`. */
async function makeSession(home: string, cwd: string, prompt: string, ageDays: number): Promise<string> {
  const script = path.join(home, "script.json");
  await writeFile(script, JSON.stringify(["text: done"]));
  const before = new Set(await readdir(path.join(home, ".kosong", "sessions")).catch(() => []));
  const run = await runKosong(["--provider", "scripted", "--script", script, "-p", prompt], { cwd, home });
  expect(run.code, run.stderr).toBe(0);
  const id = (await readdir(path.join(home, ".kosong", "sessions"))).find((name) => !before.has(name))!;
  const dir = path.join(home, ".kosong", "sessions", id);
  await writeFile(path.join(dir, "context_1.jsonl"), '{"role":"user","content":"older branch"}\n');
  await mkdir(path.join(dir, "files", "blobs"), { recursive: true });
  await writeFile(path.join(dir, "files", "blobs", "ab12"), "x".repeat(4096));
  await mkdir(path.join(dir, "agents", "child-1"), { recursive: true });
  await writeFile(path.join(dir, "agents", "child-1", "context.jsonl"), '{"role":"user","content":"sub task"}\n');
  const when = new Date(Date.now() - ageDays * day);
  for (const name of ["context.jsonl", "session.json"]) await utimes(path.join(dir, name), when, when);
  return id;
}

async function setup() {
  ensureBuilt();
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  const sessions = () => readdir(path.join(home, ".kosong", "sessions")).then((names) => names.sort());
  const kosong = (args: string[]) => runKosong(args, { cwd, home });
  return { home, cwd, sessions, kosong };
}

describe("kosong sessions prune", { timeout: 90_000 }, () => {
  it("--older-than removes exactly the old sessions, whole; --dry-run only lists them", async () => {
    const { home, cwd, sessions, kosong } = await setup();
    const old1 = await makeSession(home, cwd, "ancient question", 90);
    const old2 = await makeSession(home, cwd, "old question", 40);
    const fresh = await makeSession(home, cwd, "fresh question", 2);

    const listed = await kosong(["sessions"]);
    expect(listed.stdout).toMatch(/^ID\s+DIRECTORY\s+SIZE\s+ON DISK\s+LAST USED\s+FIRST PROMPT$/m);
    // The folder's size counts the journal blob and the subagent's conversation, not only context.jsonl.
    expect(listed.stdout).toMatch(new RegExp(`^${old1} .* [45]\\.\\d KiB .*ancient question$`, "m"));

    const dry = await kosong(["sessions", "prune", "--older-than", "30d", "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`^would remove ${old1} .*ancient question$`, "m"));
    expect(dry.stdout).toMatch(new RegExp(`^would remove ${old2} .*old question$`, "m"));
    expect(dry.stdout).not.toContain(fresh);
    expect(dry.stdout).toMatch(/^Would remove 2 sessions, /m);
    expect(await sessions()).toEqual([old1, old2, fresh].sort());

    const pruned = await kosong(["sessions", "prune", "--older-than", "30d"]);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toMatch(new RegExp(`^removed ${old1} `, "m"));
    expect(pruned.stdout).toMatch(/^Removed 2 sessions, /m);
    expect(await sessions()).toEqual([fresh]);
    // The kept session is untouched: it still resumes.
    expect((await kosong(["sessions"])).stdout).toContain("fresh question");
  });

  it("--keep N keeps the N most recently used, and with --older-than only removes what both allow", async () => {
    const { home, cwd, sessions, kosong } = await setup();
    const a = await makeSession(home, cwd, "a", 100);
    const b = await makeSession(home, cwd, "b", 50);
    const c = await makeSession(home, cwd, "c", 10);
    const d = await makeSession(home, cwd, "d", 1);
    expect((await kosong(["sessions", "prune", "--keep", "1", "--older-than", "60d"])).stdout).toMatch(/^Removed 1 session, /m);
    expect(await sessions()).toEqual([b, c, d].sort());
    const kept = await kosong(["sessions", "prune", "--keep", "2"]);
    expect(kept.code, kept.stderr).toBe(0);
    expect(await sessions()).toEqual([c, d].sort());
    void a;
  });

  it("leaves a session another kosong has open (its lock), and says so", async () => {
    const { home, cwd, sessions, kosong } = await setup();
    const open = await makeSession(home, cwd, "in use", 90);
    const log = await new JsonlSessionStore(path.join(home, ".kosong", "sessions")).openLog(open);
    const when = new Date(Date.now() - 90 * day);
    await utimes(path.join(home, ".kosong", "sessions", open, "context.jsonl"), when, when);
    try {
      const run = await kosong(["sessions", "prune", "--older-than", "30d"]);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(new RegExp(`^left ${open} .*not removed: `, "m"));
      expect(await sessions()).toEqual([open]);
    } finally {
      await log.close();
    }
    await utimes(path.join(home, ".kosong", "sessions", open, "context.jsonl"), when, when);
    expect((await kosong(["sessions", "prune", "--older-than", "30d"])).code).toBe(0);
    expect(await sessions()).toEqual([]);
  });

  it("refuses a bad age or count with a usage error and removes nothing", async () => {
    const { home, cwd, sessions, kosong } = await setup();
    const only = await makeSession(home, cwd, "keep me", 400);
    for (const args of [["--older-than", "30"], ["--older-than", "-3d"], ["--keep", "two"], []]) {
      const run = await kosong(["sessions", "prune", ...args]);
      expect(run.code, run.stdout).toBe(2);
      expect(run.stderr).toMatch(/--older-than|--keep/);
    }
    expect(await sessions()).toEqual([only]);
  });

  it("session_retention in the config prunes at start-up, sparing the session --continue opens", async () => {
    const { home, cwd, sessions, kosong } = await setup();
    const other = path.join(home, "other");
    await mkdir(other);
    const elsewhere = await makeSession(home, other, "elsewhere", 45);
    const here = await makeSession(home, cwd, "continue me", 45);
    await writeFile(path.join(home, ".kosong", "config.toml"), 'session_retention = { older_than = "30d" }\n');
    const script = path.join(home, "script.json");
    const run = await kosong(["--provider", "scripted", "--script", script, "--continue", "-p", "again"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/session_retention removed 1 old session/);
    expect(await sessions()).toEqual([here]);
    void elsewhere;
  });
});
