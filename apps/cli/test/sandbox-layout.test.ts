/**
 * The sandbox's file system view, with the real bwrap: paths to hide are
 * found by their real path and nested ones folded into their parent; a
 * hidden folder that holds the workspace keeps the workspace writable and
 * the rest of the folder hidden and read-only; a hidden file reads empty.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bwrapArguments, type SandboxLayout } from "../src/sandbox/bwrap-arguments.js";
import { protectedGitPaths } from "../src/sandbox/git-protection.js";
import { hiddenPaths } from "../src/sandbox/hidden-paths.js";
import { ensureBubblewrap } from "./ensure-bubblewrap.js";
import { useTempDirs } from "./temp-dir.js";

// Not under /tmp: the sandbox has a private /tmp, which would hide what the test looks for whatever else held.
const tempDir = useTempDirs("/var/tmp");
const bwrap = ensureBubblewrap();

function runIn(layout: SandboxLayout, script: string): { status: number | null; output: string } {
  const run = spawnSync(bwrap, [...bwrapArguments(layout), "bash", "-c", script], { encoding: "utf8" });
  return { status: run.status, output: run.stdout + run.stderr };
}

describe("the sandbox's file system view", () => {
  it("hides credential paths by their real path, nested ones with their parent", async () => {
    const home = await tempDir();
    const elsewhere = await tempDir();
    await mkdir(path.join(home, ".kosong", "sessions", "s1"), { recursive: true });
    await writeFile(path.join(home, ".netrc"), "machine x password p\n");
    await symlink(elsewhere, path.join(home, ".ssh"));
    const hidden = hiddenPaths({ home, kosongPaths: [path.join(home, ".kosong"), path.join(home, ".kosong", "sessions", "s1")] });
    expect(hidden).toEqual(
      expect.arrayContaining([
        { path: elsewhere, directory: true },
        { path: path.join(home, ".netrc"), directory: false },
        { path: path.join(home, ".kosong"), directory: true },
      ]),
    );
    expect(hidden.map((h) => h.path)).not.toContain(path.join(home, ".kosong", "sessions", "s1"));
    expect(hidden.map((h) => h.path)).not.toContain(path.join(home, ".aws"));
  });

  it("keeps a workspace inside a hidden folder writable, the rest of that folder hidden and read-only; a hidden file reads empty", async () => {
    expect(bwrap).not.toBe("");
    const root = await tempDir();
    const secretDir = path.join(root, "secret");
    const workspace = path.join(secretDir, "project");
    await mkdir(workspace, { recursive: true });
    await writeFile(path.join(secretDir, "token"), "TOKEN-VALUE\n");
    await writeFile(path.join(root, "key"), "KEY-VALUE\n");
    const tmp = await tempDir();
    const layout: SandboxLayout = {
      workspace,
      cwd: workspace,
      tempDir: tmp,
      hidden: [
        { path: secretDir, directory: true },
        { path: path.join(root, "key"), directory: false },
      ],
      readOnly: [],
      network: { kind: "none" },
    };
    const run = runIn(layout, `echo ok > made; cat ${secretDir}/token; cat ${root}/key; touch ${secretDir}/planted; echo end`);
    expect(run.output).toContain("end");
    expect(run.output).not.toContain("TOKEN-VALUE");
    expect(run.output).not.toContain("KEY-VALUE");
    expect(run.output, run.output).toMatch(/planted.: Read-only file system/);
    expect(await readFile(path.join(workspace, "made"), "utf8")).toBe("ok\n");
    expect(execFileSync("ls", [secretDir], { encoding: "utf8" }).split("\n")).not.toContain("planted");
  });

  it("keeps .git/hooks and .git/config unwritable, also when the hooks folder was missing or the config is a symlink", async () => {
    const tmp = await tempDir();
    const layoutFor = (workspace: string): SandboxLayout => ({ workspace, cwd: workspace, tempDir: tmp, hidden: [], readOnly: protectedGitPaths(workspace), network: { kind: "none" } });
    const plant = "mkdir -p .git/hooks; echo 'touch planted' > .git/hooks/pre-commit; echo '[core] fsmonitor = evil' >> .git/config; mv .git/hooks .git/old-hooks; echo ok > file; echo end";

    const noHooks = await tempDir();
    execFileSync("git", ["init", "-q", noHooks]);
    await rm(path.join(noHooks, ".git", "hooks"), { recursive: true });
    const config = await readFile(path.join(noHooks, ".git", "config"), "utf8");
    expect(runIn(layoutFor(noHooks), plant).output).toContain("end");
    expect(existsSync(path.join(noHooks, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(existsSync(path.join(noHooks, ".git", "old-hooks"))).toBe(false);
    expect(await readFile(path.join(noHooks, ".git", "config"), "utf8")).toBe(config);
    expect(await readFile(path.join(noHooks, "file"), "utf8")).toBe("ok\n");

    const linkedConfig = await tempDir();
    execFileSync("git", ["init", "-q", linkedConfig]);
    await writeFile(path.join(linkedConfig, "real-config"), "[core]\n");
    await rm(path.join(linkedConfig, ".git", "config"));
    await symlink(path.join(linkedConfig, "real-config"), path.join(linkedConfig, ".git", "config"));
    expect(runIn(layoutFor(linkedConfig), `rm .git/config; echo '[core] fsmonitor = evil' > .git/config; ${plant}`).output).toContain("end");
    expect(await readFile(path.join(linkedConfig, ".git", "config"), "utf8")).toBe("[core]\n");
    expect(existsSync(path.join(linkedConfig, ".git", "hooks", "pre-commit"))).toBe(false);
  });
});
