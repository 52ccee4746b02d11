/**
 * Starting kosong in an untrusted repository runs none of its code: the
 * built binary, in print mode against the fake provider server, in a real
 * git repository whose `.git/config` names commands in every place git
 * reads one (fsmonitor, hooks, clean and process filters, textconv, external
 * diff, pagers, ssh, an `ext::` remote, a submodule's fsmonitor, a `git`
 * of its own found through a PATH that starts with `.`). Each
 * command touches a marker outside the repository; none may appear, and the
 * system prompt still gets the branch and the status.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmod, mkdir, readdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { runKosong } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";

const tempDir = useTempDirs();
const { server } = await kosongSuite();

const usage = { input_other: 120, output: 8, input_cache_read: 0, input_cache_creation: 0 };
const say = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
const gitEnv = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, env: gitEnv, stdio: ["ignore", "pipe", "pipe"] }).toString();

/** A repository on branch `main` with a committed submodule, planted with a command in every config-driven place. */
async function plantedRepository(home: string, markers: string) {
  const ws = path.join(home, "ws");
  const subSource = path.join(home, "sub-source");
  await mkdir(subSource);
  git(subSource, "init", "-q", "-b", "main");
  await writeFile(path.join(subSource, "s.txt"), "sub\n");
  git(subSource, "add", ".");
  git(subSource, "commit", "-qm", "sub");
  await mkdir(ws);
  git(ws, "init", "-q", "-b", "main");
  await writeFile(path.join(ws, ".gitattributes"), "a.txt filter=evil diff=evil\nb.txt filter=evil2\n");
  for (const name of ["a.txt", "b.txt", "c.txt"]) await writeFile(path.join(ws, name), `${name}\n`);
  git(ws, "add", ".");
  git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", subSource, "sub");
  git(ws, "commit", "-qm", "init");

  const touch = (name: string) => `touch '${path.join(markers, name)}'`;
  const hooks = path.join(ws, ".git", "evil-hooks");
  await mkdir(hooks);
  for (const hook of ["post-index-change", "pre-commit", "post-checkout", "reference-transaction", "fsmonitor-watchman"]) {
    await writeFile(path.join(hooks, hook), `#!/bin/sh\n${touch(`hook-${hook}`)}\n`);
    await chmod(path.join(hooks, hook), 0o755);
  }
  const config: Array<[string, string]> = [
    ["core.fsmonitor", `${touch("fsmonitor")}; false`],
    ["core.hooksPath", hooks],
    ["filter.evil.clean", `${touch("filter-clean")}; cat`],
    ["filter.evil.smudge", `${touch("filter-smudge")}; cat`],
    ["filter.evil.required", "true"],
    ["filter.evil2.process", `${touch("filter-process")}; false`],
    ["diff.evil.textconv", `${touch("textconv")}; cat`],
    ["diff.external", touch("diff-external")],
    ["core.pager", `${touch("core-pager")}; cat`],
    ["pager.status", `${touch("pager-status")}; cat`],
    ["pager.branch", `${touch("pager-branch")}; cat`],
    ["core.sshCommand", touch("ssh-command")],
    ["core.askPass", touch("askpass")],
    ["remote.origin.url", `ext::sh -c ${touch("ext-remote")}`],
    ["status.submoduleSummary", "true"],
    ["core.untrackedCache", "true"],
  ];
  for (const [key, value] of config) git(ws, "config", key, value);
  git(path.join(ws, "sub"), "config", "core.fsmonitor", `${touch("submodule-fsmonitor")}; false`);
  // Programs of the same names as git and what it may run, for a PATH that searches the current folder.
  for (const program of ["git", "cat", "less", "sh", "ssh"]) {
    await writeFile(path.join(ws, program), `#!/bin/sh\n${touch(`path-${program}`)}\n`);
    await chmod(path.join(ws, program), 0o755);
  }

  // Stat-dirty tracked files with their committed content (git then reads them, through their filter), a
  // changed file, a dirty submodule and an untracked file.
  const past = new Date("2020-01-01T00:00:00Z");
  for (const name of ["a.txt", "b.txt"]) await utimes(path.join(ws, name), past, past);
  await writeFile(path.join(ws, "c.txt"), "changed content\n");
  await writeFile(path.join(ws, "sub", "s.txt"), "dirty\n");
  await writeFile(path.join(ws, "new.txt"), "untracked\n");
  return ws;
}

describe("kosong in an untrusted repository (the built binary, print mode)", { timeout: 60_000 }, () => {
  it("runs no command the repository's git config names, and still tells the model the branch and status", async () => {
    const home = await tempDir();
    const markers = path.join(home, "markers");
    await mkdir(markers);
    const ws = await plantedRepository(home, markers);
    server.enqueue({ message: say("Hi."), usage });

    // PATH starts with `.` (some users have it; an empty entry means the same).
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, PATH: `.:${process.env.PATH}` };
    const result = await runKosong(["-p", "hi", "--model", "test-model"], { cwd: ws, home, env });
    expect(result.code, result.stderr).toBe(0);
    expect(await readdir(markers)).toEqual([]);

    const system = (server.requests[0]!.body!.messages as { role: string; content: string }[])[0]!;
    expect(system.role).toBe("system");
    expect(system.content).toContain("Git branch: main");
    expect(system.content).toMatch(/^ M c\.txt$/m);
    expect(system.content).toMatch(/^\?\? new\.txt$/m);
    // The touched files hold their committed content: with the filters off they may show as changed, but git ran nothing.
    expect(system.content).not.toContain("fsmonitor");

    // The planted commands are real: a plain `git status`, as kosong ran it before, runs them (and fails on the process filter).
    spawnSync("git", ["status", "--short"], { cwd: ws, env: gitEnv });
    expect(await readdir(markers)).toEqual(expect.arrayContaining(["fsmonitor", "filter-clean", "filter-process"]));
  });
});
