/**
 * Node's compile cache for kosong's start, through the built binary: kept in
 * the user's cache folder (`$XDG_CACHE_HOME/kosong/compile`, else
 * `~/.cache/kosong/compile`; 0700), never in `$KOSONG_HOME`, and a cache
 * folder Node's own recursive mkdir would spin on (under `/proc`) still
 * starts at once, without a cache.
 */
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { ensureBuilt, runKosong } from "./kosong-binary.js";

const tempDir = useTempDirs();
ensureBuilt();

describe("the compile cache", () => {
  it("is kept in ~/.cache/kosong/compile (0700), or under XDG_CACHE_HOME, with the compiled modules of a run", async () => {
    for (const xdg of [false, true]) {
      const home = await tempDir();
      // Unset (empty), XDG_CACHE_HOME leaves the cache in ~/.cache.
      const env = { XDG_CACHE_HOME: xdg ? path.join(home, "xdg") : "" };
      // `--help` loads the command line (`--version` alone is answered before the cache is turned on).
      expect((await runKosong(["--help"], { cwd: home, home, env })).code).toBe(0);
      const cache = path.join(home, xdg ? "xdg" : ".cache", "kosong", "compile");
      expect((await stat(cache)).mode & 0o777).toBe(0o700);
      const [version] = await readdir(cache);
      expect(version).toMatch(/^v\d+/);
      expect((await readdir(path.join(cache, version!))).length).toBeGreaterThan(0);
      // $KOSONG_HOME is not made for it.
      expect(await readdir(home)).toEqual([xdg ? "xdg" : ".cache"]);
    }
  });

  it("starts at once when the cache folder cannot be made (under /proc)", async () => {
    const home = await tempDir();
    const run = await runKosong(["--help"], { cwd: home, home, env: { XDG_CACHE_HOME: "/proc/x" } });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: kosong /);
  }, 10_000);
});
