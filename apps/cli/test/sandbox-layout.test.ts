/**
 * The sandbox's file system view, with the real bwrap: paths to hide are
 * found by their real path and nested ones folded into their parent; a
 * hidden folder that holds the workspace keeps the workspace writable and
 * the rest of the folder hidden and read-only; a hidden file reads empty.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bwrapArguments, type SandboxLayout } from "../src/sandbox/bwrap-arguments.js";
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
});
