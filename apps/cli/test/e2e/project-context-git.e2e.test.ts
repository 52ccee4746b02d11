/**
 * The project context's git runs once per start: the start loads the
 * project context while the modules load (`run-main.ts`), and opening the
 * session takes that load rather than starting git again. The built binary
 * in print mode, in a git repository, with a `git` first on PATH that logs
 * each run and hands it to the real git.
 */
import { execFileSync } from "node:child_process";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { runKosong, useFakeProviderServer } from "./kosong-binary.js";

const fake = useFakeProviderServer();
const tempDir = useTempDirs();

describe("the project context's git at start (the built binary, print mode)", { timeout: 60_000 }, () => {
  it("runs git's two commands once, and the model still gets the branch and the status", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    const env = { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
    const git = (...args: string[]) => execFileSync(realGit, args, { cwd, env: { ...process.env, ...env } });
    git("init", "-q", "-b", "main");
    await writeFile(path.join(cwd, "a.txt"), "a\n");
    git("add", ".");
    git("commit", "-qm", "init");
    await writeFile(path.join(cwd, "a.txt"), "changed\n");
    const bin = path.join(home, "bin");
    await mkdir(bin);
    const log = path.join(home, "git-runs.log");
    await writeFile(path.join(bin, "git"), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${realGit}' "$@"\n`);
    await chmod(path.join(bin, "git"), 0o755);
    fake.server.enqueue({ message: { role: "assistant", content: [{ type: "text", text: "Hi." }] } });

    const run = await runKosong(["-p", "hi"], { cwd, home, env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1`, PATH: `${bin}:${process.env.PATH}` } });
    expect(run.code, run.stderr).toBe(0);
    const runs = (await readFile(log, "utf8")).trim().split("\n");
    expect(runs.map((args) => args.match(/ (config|status) /)?.[1])).toEqual(["config", "status"]);
    const system = (fake.server.requests[0]!.body!.messages as Array<{ role: string; content: string }>)[0]!;
    expect(system.content).toContain("Git branch: main");
    expect(system.content).toMatch(/^ M a\.txt$/m);
  });
});
