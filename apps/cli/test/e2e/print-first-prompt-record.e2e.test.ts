/**
 * `kosong -p` writes the first prompt's record in `session.json` while the
 * turn runs (the request does not wait for that write and its sync to
 * disk), as the interactive mode does: a write that fails does not stop
 * the turn, and is told on stderr at the end. The failure is real: the
 * session's `session.json` is made immutable (`chattr +i`, root on ext4),
 * so the rename over it is refused.
 */
import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { runKosong, useFakeProviderServer } from "./kosong-binary.js";

const tempDir = useTempDirs();
const fake = useFakeProviderServer();
const immutable: string[] = [];
afterEach(() => {
  for (const file of immutable.splice(0)) execFileSync("chattr", ["-i", file]);
});

describe("kosong -p and the first prompt's record", { timeout: 60_000 }, () => {
  it.skipIf(process.getuid?.() !== 0)("runs the turn when session.json cannot be replaced, and says so on stderr", async (ctx) => {
    const home = await tempDir();
    const cwd = await tempDir();
    const dir = path.join(home, ".kosong", "sessions", "s1");
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(path.join(dir, "context.jsonl"), "", { mode: 0o600 });
    const metadata = path.join(dir, "session.json");
    await writeFile(metadata, JSON.stringify({ id: "s1", cwd, first_prompt: null, created_at: new Date().toISOString() }), { mode: 0o600 });
    try {
      execFileSync("chattr", ["+i", metadata], { stdio: "ignore" });
    } catch {
      return ctx.skip("the temporary folder's file system has no immutable attribute (chattr)");
    }
    immutable.push(metadata);
    fake.server.enqueue({ message: { role: "assistant", content: [{ type: "text", text: "Answered anyway." }] } });
    const run = await runKosong(["-p", "hello there", "--session", "s1"], { cwd, home, env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1` } });
    expect(run.stdout).toContain("Answered anyway.");
    expect(run.stderr).toMatch(/kosong: the session's first prompt was not recorded in session\.json: .*(EPERM|not permitted)/);
    expect(run.code, run.stderr).toBe(0);
    expect(await readFile(path.join(dir, "context.jsonl"), "utf8")).toContain("hello there");
  });
});
