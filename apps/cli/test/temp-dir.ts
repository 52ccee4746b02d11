/** Temporary folders for tests, removed after each test. */
import { mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";

/** Returns a function that makes a fresh temporary folder (real path) in `base` (default: the system's), removed after the test. */
export function useTempDirs(base = os.tmpdir()): (prefix?: string) => Promise<string> {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 5 })));
  });
  return async (prefix = "kosong-cli-") => {
    const dir = await realpath(await mkdtemp(path.join(base, prefix)));
    made.push(dir);
    return dir;
  };
}
