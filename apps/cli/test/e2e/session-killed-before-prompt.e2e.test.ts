/**
 * A session killed with SIGKILL before its first prompt (a closed terminal,
 * the OOM killer) has nothing to resume: `kosong sessions` does not list it,
 * `--continue` goes on with the session before it, and its folder is
 * removed once no process holds it. Run through the built binary: a real
 * `kosong --wire` waits for its first prompt and is killed.
 */
import { spawn } from "node:child_process";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, kosongBin, runKosong, useFakeProviderServer } from "./kosong-binary.js";

const tempDir = useTempDirs();
const fake = useFakeProviderServer();
const answer = (text: string) => ({ message: { role: "assistant" as const, content: [{ type: "text" as const, text }] } });

/** The session folders under `home`. */
const sessionIds = (home: string) => readdir(path.join(home, ".kosong", "sessions")).catch(() => [] as string[]);

/** Starts `kosong --wire` in `cwd`, waits until its new session holds its conversation's lock, and kills it with SIGKILL; the killed session's id. */
async function killBeforeFirstPrompt(home: string, cwd: string, env: Record<string, string>): Promise<string> {
  const before = new Set(await sessionIds(home));
  const child = spawn(process.execPath, [kosongBin, "--wire"], { cwd, env: cleanEnv(home, env), stdio: ["pipe", "ignore", "ignore"] });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  try {
    for (let i = 0; i < 400; i += 1) {
      const id = (await sessionIds(home)).find((name) => !before.has(name));
      const locked = id !== undefined && (await readdir(path.join(home, ".kosong", "sessions", id))).includes("context.jsonl.lock");
      if (locked) return id;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error("kosong --wire made no locked session");
  } finally {
    child.kill("SIGKILL");
    await exited;
  }
}

describe("a session killed before its first prompt", { timeout: 120_000 }, () => {
  it("is not listed, is not what --continue resumes, and its folder is removed", async () => {
    const home = await tempDir();
    const cwd = await tempDir();
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1` };
    fake.server.enqueue(answer("Started."));
    const first = await runKosong(["-p", "fix the flaky test"], { cwd, home, env });
    expect(first.code, first.stderr).toBe(0);
    const [kept] = await sessionIds(home);

    const killed = await killBeforeFirstPrompt(home, cwd, env);
    expect(await sessionIds(home)).toContain(killed);

    const listing = await runKosong(["sessions"], { cwd, home, env });
    expect(listing.code, listing.stderr).toBe(0);
    expect(listing.stdout).toContain(kept!);
    expect(listing.stdout).not.toContain(killed);
    expect(await sessionIds(home)).toEqual([kept]);

    fake.server.enqueue(answer("Going on."));
    const continued = await runKosong(["-p", "go on", "--continue"], { cwd, home, env });
    expect(continued.code, continued.stderr).toBe(0);
    const sent = JSON.stringify(fake.server.requests.at(-1)!.body!.messages);
    expect(sent).toContain("fix the flaky test");
  });

  it("is not what --continue resumes even while its folder is still there", async () => {
    const home = await tempDir();
    const cwd = await tempDir();
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1` };
    fake.server.enqueue(answer("Started."));
    expect((await runKosong(["-p", "write the changelog"], { cwd, home, env })).code).toBe(0);
    await killBeforeFirstPrompt(home, cwd, env);
    fake.server.enqueue(answer("Going on."));
    const continued = await runKosong(["-p", "go on", "--continue"], { cwd, home, env });
    expect(continued.code, continued.stderr).toBe(0);
    expect(JSON.stringify(fake.server.requests.at(-1)!.body!.messages)).toContain("write the changelog");
  });
});
