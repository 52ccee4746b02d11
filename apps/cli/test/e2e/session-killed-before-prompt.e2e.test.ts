/**
 * A session killed with SIGKILL before its first prompt (a closed terminal,
 * the OOM killer) has nothing to resume: `kosong sessions` does not list it,
 * `--continue` goes on with the session before it, and `kosong sessions`
 * removes its folder once no process holds it (a prune's dry run does not);
 * until then the folder and its file journal's are private (0700). Run through the built binary: a real
 * interactive `kosong` in tmux, killed at its prompt once it has stored its
 * system prompt, and a real `kosong --wire` waiting for its first prompt.
 */
import { spawn } from "node:child_process";
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, kosongBin, runKosong } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";

const tempDir = useTempDirs();
const { server, start } = await kosongSuite({ tmux: true });
const answer = (text: string) => ({ message: { role: "assistant" as const, content: [{ type: "text" as const, text }] } });

/** The session folders under `home`. */
const sessionIds = (home: string) => readdir(path.join(home, ".kosong", "sessions")).catch(() => [] as string[]);

/**
 * Waits for a session of `home` not in `before` whose conversation file is
 * locked (and, with `stored`, holds the system prompt), then kills the lock's
 * owner with SIGKILL; the session's id.
 */
async function killOwner(home: string, before: Set<string>, stored: boolean): Promise<string> {
  for (let i = 0; i < 600; i += 1) {
    const id = (await sessionIds(home)).find((name) => !before.has(name));
    if (id !== undefined) {
      const context = path.join(home, ".kosong", "sessions", id, "context.jsonl");
      const lock = await readFile(`${context}.lock`, "utf8").catch(() => "");
      const ready = lock.endsWith("\n") && (!stored || (await stat(context)).size > 0);
      if (ready) {
        process.kill((JSON.parse(lock) as { pid: number }).pid, "SIGKILL");
        return id;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("no locked session appeared");
}

/** A home and working folder with one real session (`kosong -p prompt`); its id. */
async function withSession(prompt: string) {
  const home = await tempDir();
  const cwd = await tempDir();
  const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };
  server.enqueue(answer("Started."));
  const first = await runKosong(["-p", prompt], { cwd, home, env });
  expect(first.code, first.stderr).toBe(0);
  const [kept] = await sessionIds(home);
  return { home, cwd, env, kept: kept! };
}

/** `kosong -p "go on" --continue` in `cwd`: the messages it sent the model. */
async function continued(home: string, cwd: string, env: Record<string, string>): Promise<string> {
  server.enqueue(answer("Going on."));
  const run = await runKosong(["-p", "go on", "--continue"], { cwd, home, env });
  expect(run.code, run.stderr).toBe(0);
  return JSON.stringify(server.requests.at(-1)!.body!.messages);
}

describe("a session killed before its first prompt", { timeout: 120_000 }, () => {
  it("interactive, killed at its prompt: not listed, not what --continue resumes, and its folder is removed", async () => {
    const { home, cwd, env, kept } = await withSession("fix the flaky test");
    const terminal = start([], { cwd, env: cleanEnv(home, env) });
    const killed = await killOwner(home, new Set([kept]), true);
    await terminal.waitFor(/\[exit 137\]/);
    expect(await sessionIds(home)).toContain(killed);
    // What it left is private from its creation (no close made it so): its folder, and the file journal's in it.
    const folder = path.join(home, ".kosong", "sessions", killed);
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(folder, "files"))).mode & 0o777).toBe(0o700);
    // A dry run touches nothing.
    expect((await runKosong(["sessions", "prune", "--older-than", "3650d", "--dry-run"], { cwd, home, env })).code).toBe(0);
    expect(await sessionIds(home)).toContain(killed);

    const listing = await runKosong(["sessions"], { cwd, home, env });
    expect(listing.code, listing.stderr).toBe(0);
    expect(listing.stdout).toContain(kept);
    expect(listing.stdout).not.toContain(killed);
    expect(await sessionIds(home)).toEqual([kept]);
    expect(await continued(home, cwd, env)).toContain("fix the flaky test");
  });

  it("--wire, killed before its first prompt: --continue goes on with the session before it", async () => {
    const { home, cwd, env, kept } = await withSession("write the changelog");
    const child = spawn(process.execPath, [kosongBin, "--wire"], { cwd, env: cleanEnv(home, env), stdio: ["pipe", "ignore", "ignore"] });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    await killOwner(home, new Set([kept]), false);
    await exited;
    expect(await continued(home, cwd, env)).toContain("write the changelog");
  });
});
