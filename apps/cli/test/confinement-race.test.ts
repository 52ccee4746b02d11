/**
 * Check-then-use races: a real child process flips a file and a folder of
 * the workspace between a real path and a symlink to outside, in a tight
 * loop, while ReadFile, WriteFile, EditFile and Grep each run 500 operations
 * on them. Nothing outside may be read or written.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ToolReturnValue } from "@kosong/core";
import { afterEach, describe, expect, it } from "vitest";
import { useTempDirs } from "./temp-dir.js";
import { outputText, toolHarness } from "./tool-harness.js";

const tempDir = useTempDirs();
const operationsPerTool = 500;

/** Flips `flip.txt` (file <-> link to outside/secret.txt) and `flipdir` (folder <-> link to outside) until killed. */
const flipper = `
const fs = require("node:fs");
const [root, outside] = process.argv.slice(1);
const at = (name) => root + "/" + name;
const attempt = (step) => { try { step(); } catch {} };
process.stdout.write("ready\\n");
for (;;) {
  attempt(() => { fs.symlinkSync(outside + "/secret.txt", at("flip.link")); fs.renameSync(at("flip.link"), at("flip.txt")); });
  attempt(() => { fs.rmSync(at("flipdir.real"), { recursive: true, force: true }); fs.renameSync(at("flipdir"), at("flipdir.real")); });
  attempt(() => { fs.symlinkSync(outside, at("flipdir.link")); fs.renameSync(at("flipdir.link"), at("flipdir")); });
  attempt(() => { fs.writeFileSync(at("flip.new"), "inside secret\\n"); fs.renameSync(at("flip.new"), at("flip.txt")); });
  attempt(() => { fs.mkdirSync(at("flipdir.new"), { recursive: true }); fs.writeFileSync(at("flipdir.new/secret.txt"), "inside secret\\n"); });
  attempt(() => { fs.unlinkSync(at("flipdir")); fs.renameSync(at("flipdir.new"), at("flipdir")); });
}
`;

let child: ChildProcess | null = null;
afterEach(() => {
  child?.kill("SIGKILL");
  child = null;
});

async function startFlipper(root: string, outside: string): Promise<void> {
  child = spawn(process.execPath, ["-e", flipper, root, outside], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child!.stdout!.once("data", () => resolve());
    child!.once("error", reject);
  });
}

describe("a process flipping paths to symlinks while the tools work", () => {
  it("never lets ReadFile, WriteFile, EditFile or Grep read or write outside (500 operations each)", { timeout: 120_000 }, async () => {
    const { root, outside, call } = await toolHarness(tempDir);
    await writeFile(path.join(root, "flip.txt"), "inside secret\n");
    await mkdir(path.join(root, "flipdir"));
    await writeFile(path.join(root, "flipdir/secret.txt"), "inside secret\n");
    await startFlipper(root, outside);

    const targets = ["flip.txt", "flipdir/secret.txt"];
    const outcomes = { ok: 0, refused: 0 };
    const leaks: string[] = [];
    const tally = (name: string, result: ToolReturnValue) => {
      if (outputText(result).includes("top") || (result.message ?? "").includes("top")) leaks.push(`${name}: ${JSON.stringify(result)}`);
      if (result.is_error) outcomes.refused++;
      else outcomes.ok++;
    };
    const run = async (name: string, args: (i: number) => Record<string, unknown>) => {
      for (let i = 0; i < operationsPerTool; i++) tally(name, await call(name, args(i)));
    };
    await Promise.all([
      run("ReadFile", (i) => ({ path: targets[i % 2] })),
      run("WriteFile", (i) => ({ path: targets[i % 2], content: `written ${i}\n`, mode: i % 4 < 2 ? "overwrite" : "append" })),
      run("EditFile", (i) => ({ path: targets[i % 2], old_string: "secret", new_string: "edited" })),
      run("Grep", (i) => ({ pattern: "secret", path: i % 2 ? "." : "flipdir" })),
    ]);
    child?.kill("SIGKILL");

    expect(leaks).toEqual([]);
    expect((await readdir(outside)).sort()).toEqual(["secret.txt"]);
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("top secret\n");
    // The race was real: some operations met the link (refused), some the real path (done).
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(outcomes.ok).toBeGreaterThan(0);
    expect(outcomes.ok + outcomes.refused).toBe(4 * operationsPerTool);
  });
});
