/**
 * The git summary of the system prompt: the same branch and status lines as
 * `git branch --show-current` and `git status --short` give, from two git
 * processes, and no filter driver a configuration names ever runs.
 */
import { execFileSync } from "node:child_process";
import { chmod, mkdir, readdir, readFile, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gitSummary } from "../src/project/git-summary.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();
const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();

const git = (cwd: string, ...args: string[]) => execFileSync(realGit, args, { cwd, encoding: "utf8", env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: "1" } });

let home = "";
let runs = "";
const saved = { PATH: process.env.PATH, HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };

beforeEach(async () => {
  // A git first on PATH that notes each run (its subcommand) and runs the real git.
  const bin = await tempDir();
  runs = path.join(bin, "runs.log");
  await writeFile(path.join(bin, "git"), `#!/bin/sh\necho "$3" >> '${runs}'\nexec '${realGit}' "$@"\n`);
  await chmod(path.join(bin, "git"), 0o755);
  home = await tempDir();
  process.env.PATH = `${bin}${path.delimiter}${saved.PATH ?? ""}`;
  process.env.HOME = home;
});

afterEach(() => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

/** A repository whose committed `a.txt` goes through the filter driver `evil`, stat-dirty so that `git status` re-reads it. */
async function filteredRepository(defineFilter: (markers: string) => Promise<void>): Promise<{ repo: string; markers: string }> {
  const repo = await repository();
  const markers = await tempDir();
  await defineFilter(markers);
  await writeFile(path.join(repo, ".gitattributes"), "a.txt filter=evil\n");
  await writeFile(path.join(repo, "a.txt"), "committed\n");
  git(repo, "add", ".");
  git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a");
  execFileSync("rm", ["-f", path.join(markers, "clean")]);
  await utimes(path.join(repo, "a.txt"), new Date(), new Date(Date.now() + 5_000));
  return { repo, markers };
}

const ran = async () => (await readFile(runs, "utf8").catch(() => "")).split("\n").filter(Boolean);

async function repository(): Promise<string> {
  const repo = await tempDir();
  git(repo, "init", "-q", "-b", "main");
  git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init");
  return repo;
}

describe("git summary", () => {
  it("starts two git processes (the filter drivers, then the branch and the status), with the lines git's own commands give, from a subfolder too", async () => {
    const repo = await repository();
    await mkdir(path.join(repo, "sub"));
    await writeFile(path.join(repo, "sub", "new.txt"), "x");
    await writeFile(path.join(repo, "top.txt"), "y");
    git(repo, "checkout", "-q", "-b", "feature/x");
    const cwd = path.join(repo, "sub");
    const summary = await gitSummary(cwd);
    expect(await ran()).toEqual(["config", "status"]);
    expect(summary).toEqual({ branch: git(cwd, "branch", "--show-current").trim(), status: git(cwd, "status", "--short").split("\n").filter(Boolean) });
    expect(summary!.status).toEqual(["?? ./", "?? ../top.txt"]);
  });

  it("names an unborn branch, a branch with an upstream, and a detached HEAD as git does", async () => {
    const unborn = await tempDir();
    git(unborn, "init", "-q", "-b", "fresh");
    expect((await gitSummary(unborn))?.branch).toBe("fresh");
    const upstream = await repository();
    const clone = await tempDir();
    git(clone, "clone", "-q", upstream, ".");
    git(clone, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "ahead");
    expect((await gitSummary(clone))?.branch).toBe("main");
    git(clone, "checkout", "-q", "--detach");
    expect(await gitSummary(clone)).toEqual({ branch: "(detached HEAD)", status: [] });
  });

  it("turns off a filter driver of the user's ~/.gitconfig (as git-lfs adds)", async () => {
    const repo = await repository();
    const markers = await tempDir();
    await writeFile(path.join(home, ".gitconfig"), `[user]\n\tname = t\n[filter "evil"]\n\tclean = touch '${markers}/clean'; cat\n\trequired = true\n`);
    await writeFile(path.join(repo, ".gitattributes"), "a.txt filter=evil\n");
    await writeFile(path.join(repo, "a.txt"), "committed\n");
    git(repo, "add", ".");
    git(repo, "-c", "user.email=t@t", "commit", "-q", "-m", "a");
    await readdir(markers).then((made) => expect(made).toEqual(["clean"]));
    execFileSync("rm", [path.join(markers, "clean")]);
    // Stat-dirty: git re-reads the file, through its clean filter unless turned off.
    await utimes(path.join(repo, "a.txt"), new Date(), new Date(Date.now() + 5_000));
    const summary = await gitSummary(repo);
    expect(summary?.branch).toBe("main");
    expect(await readdir(markers)).toEqual([]);
    expect(await ran()).toEqual(["config", "status"]);
  });

  it("turns off a filter driver a configuration file includes", async () => {
    const { repo, markers } = await filteredRepository(async (markers) => {
      await writeFile(path.join(home, "more.gitconfig"), `[filter "evil"]\n\tclean = touch '${markers}/clean'; cat\n`);
      await writeFile(path.join(home, ".gitconfig"), `[include]\n\tpath = ${path.join(home, "more.gitconfig")}\n`);
    });
    expect((await gitSummary(repo))?.branch).toBe("main");
    expect(await readdir(markers)).toEqual([]);
    expect(await ran()).toEqual(["config", "status"]);
  });

  it("turns off a filter driver of $XDG_CONFIG_HOME/git/config, which git reads instead of ~/.config/git/config", async () => {
    const xdg = await tempDir();
    process.env.XDG_CONFIG_HOME = xdg;
    const { repo, markers } = await filteredRepository(async (markers) => {
      await mkdir(path.join(xdg, "git"));
      await writeFile(path.join(xdg, "git", "config"), `[filter "evil"]\n\tclean = touch '${markers}/clean'; cat\n`);
    });
    expect((await gitSummary(repo))?.branch).toBe("main");
    expect(await readdir(markers)).toEqual([]);
  });

  it("turns off a driver a repository's .git/config sets on its section header's line", async () => {
    const { repo, markers } = await filteredRepository(async () => undefined);
    const repoConfig = path.join(repo, ".git", "config");
    await writeFile(repoConfig, `${await readFile(repoConfig, "utf8")}[FILTER "evil"] clean = touch '${markers}/clean'; cat\n`);
    expect((await gitSummary(repo))?.branch).toBe("main");
    expect(await readdir(markers)).toEqual([]);
    expect(await ran()).toEqual(["config", "status"]);
  });

  describe("turns off the drivers of the repository git itself uses", () => {
    /** A stat-dirty repository whose own .git/config defines the filter `evil`. */
    async function evilRepository(): Promise<{ repo: string; markers: string }> {
      const made = await filteredRepository(async () => undefined);
      const config = path.join(made.repo, ".git", "config");
      await writeFile(config, `${await readFile(config, "utf8")}[filter "evil"]\n\tclean = touch '${made.markers}/clean'; cat\n`);
      return made;
    }

    it("a .git folder that is not a valid git directory (git would go on to the repository above)", async () => {
      const { repo, markers } = await evilRepository();
      const inner = path.join(repo, "inner");
      await mkdir(path.join(inner, ".git"), { recursive: true });
      await writeFile(path.join(inner, ".git", "config"), "[core]\n\tbare = false\n");
      await gitSummary(inner);
      expect(await readdir(markers)).toEqual([]);
    });

    it("a folder between the working directory and .git that looks like a git directory (git would use it)", async () => {
      const { repo: evil, markers } = await evilRepository();
      const outer = await repository();
      const sub = path.join(outer, "sub");
      execFileSync("cp", ["-r", path.join(evil, ".git"), sub]);
      git(evil, "config", "--file", path.join(sub, "config"), "core.worktree", evil);
      await gitSummary(sub);
      expect(await readdir(markers)).toEqual([]);
    });

    it("a .git folder whose commondir names where git reads the config", async () => {
      const { repo, markers } = await evilRepository();
      const common = await tempDir();
      execFileSync("cp", ["-r", `${path.join(repo, ".git")}/.`, common]);
      await writeFile(path.join(repo, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n");
      await writeFile(path.join(repo, ".git", "commondir"), `${common}\n`);
      expect((await gitSummary(repo))?.branch).toBe("main");
      expect(await readdir(markers)).toEqual([]);
    });

    it("a .git/config that sets core.worktree: git's own discovery is used, and so its worktree", async () => {
      const repo = await repository();
      await writeFile(path.join(repo, "a.txt"), "a\n");
      git(repo, "add", ".");
      git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a");
      const elsewhere = await tempDir();
      execFileSync("mv", [path.join(repo, ".git"), elsewhere]);
      git(elsewhere, "config", "core.worktree", repo);
      await writeFile(path.join(repo, "b.txt"), "b\n");
      // git shows the worktree's status; a summary against the folder holding .git would show a.txt deleted.
      expect(await gitSummary(elsewhere)).toEqual({ branch: "main", status: ["?? b.txt"] });
    });

    it.skipIf(process.getuid?.() !== 0)("a repository of another user: git's own refusal (safe.directory) stands", async () => {
      const repo = await repository();
      execFileSync("chown", ["-R", "65534:65534", repo]);
      expect(await gitSummary(repo)).toBeNull();
    });

    it("a relative HOME, from which git would read the repository's own .gitconfig", async () => {
      const xdg = await tempDir();
      process.env.XDG_CONFIG_HOME = xdg;
      const { repo, markers } = await filteredRepository(async () => undefined);
      await writeFile(path.join(repo, ".gitconfig"), `[filter "evil"]\n\tclean = touch '${markers}/clean'; cat\n`);
      process.env.HOME = ".";
      await gitSummary(repo);
      expect(await readdir(markers)).toEqual([]);
    });
  });
});
