/**
 * `kosong --version` through the built binary: the entry answers it (and
 * `-V`) alone without loading the command line (commander and the program's
 * every flag and command, `cli-main.js`) or anything else beside its own
 * file, so it starts about as fast as a bare `node`; with other arguments
 * the command line prints the same line. Which of the bundle's files a run
 * loads is recorded by a module load hook preloaded into the child
 * (`record-loaded-modules.mjs`).
 */
import { spawn } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import packageJson from "../../package.json" with { type: "json" };
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, ensureBuilt, kosongBin, runKosong } from "./kosong-binary.js";

const tempDir = useTempDirs();
const recorder = pathToFileURL(fileURLToPath(new URL("record-loaded-modules.mjs", import.meta.url))).href;
const dist = path.dirname(kosongBin);

beforeAll(() => ensureBuilt(), 300_000);

/** Runs `kosong args...`; its output and the bundle's files it loaded (names in dist/ and their total size). */
async function runRecorded(args: string[]) {
  const home = await tempDir();
  const list = path.join(home, "loaded.txt");
  const run = await runKosong(args, { cwd: home, home, env: { NODE_OPTIONS: `--import ${recorder}`, KOSONG_TEST_LOADED_MODULES: list } });
  const files = (await readFile(list, "utf8")).split("\n").map((url) => fileURLToPath(url)).filter((file) => path.dirname(file) === dist);
  const bytes = (await Promise.all(files.map((file) => stat(file)))).reduce((sum, s) => sum + s.size, 0);
  return { ...run, files: files.map((file) => path.basename(file)), bytes };
}

describe("kosong --version", () => {
  it("prints the version with --version or -V alone, loading none of the command line", async () => {
    for (const flag of ["--version", "-V"]) {
      const run = await runRecorded([flag]);
      expect(run.stdout, flag).toBe(`kosong ${packageJson.version}\n`);
      expect(run.stderr, flag).toBe("");
      expect(run.code, flag).toBe(0);
      // The entry's own bundle alone, a few KB: not the command line (cli-main.js: commander and every flag and command, ~120 KB).
      expect(run.files, flag).toEqual(["kosong.js"]);
      expect(run.bytes, flag).toBeLessThan(16 * 1024);
    }
  });

  it("prints the same line through the command line when other arguments come with it", async () => {
    const run = await runRecorded(["--model", "some-model", "--version"]);
    expect(run.stdout).toBe(`kosong ${packageJson.version}\n`);
    expect(run.code).toBe(0);
    expect(run.files.some((file) => file.startsWith("cli-main"))).toBe(true);
  });

  it("ends quietly with success when the reader of its output has gone (`kosong --version | true`)", async () => {
    const home = await tempDir();
    const child = spawn(process.execPath, [kosongBin, "--version"], { cwd: home, env: cleanEnv(home), stdio: ["ignore", "pipe", "pipe"] });
    // The pipe's reading end closed before the version is written: the write fails with EPIPE.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});
