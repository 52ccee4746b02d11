/**
 * A lock file whose own write fails (a full disk) is not left behind empty:
 * an empty lock reads as one still being written, so the next writer would
 * wait 2 s before taking it over as stale. A real full file system: a tmpfs
 * of 64 KiB mounted for the test (root only) and filled up.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { SessionLock } from "@kosong/context";
import { tempDir } from "@kosong/test-support";
import { assertDistIsFresh } from "./helpers/child.js";

const mounted: string[] = [];
afterEach(() => {
  for (const dir of mounted.splice(0)) execFileSync("umount", [dir]);
});

/** A folder on a tmpfs of 64 KiB, filled up but for the entries a file takes; null where mounting is not allowed. */
async function fullFolder(): Promise<{ dir: string; free: () => Promise<void> } | null> {
  const dir = path.join(await tempDir(), "full");
  await mkdir(dir);
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir], { stdio: "ignore" });
  } catch {
    return null;
  }
  mounted.push(dir);
  const filler = path.join(dir, "filler");
  await writeFile(filler, Buffer.alloc(128 * 1024)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOSPC") throw error;
  });
  return { dir, free: () => rm(filler) };
}

describe("a lock file on a full disk", () => {
  beforeAll(assertDistIsFresh);

  it.skipIf(process.getuid?.() !== 0)("is removed when its own write fails, and the next writer takes the lock at once", async (ctx) => {
    const full = await fullFolder();
    if (full === null) return ctx.skip("mounting a tmpfs is not allowed here");
    const { dir, free } = full;
    const file = path.join(dir, "context.jsonl");
    const error = await SessionLock.acquire(file).catch((e: unknown) => e);
    expect((error as NodeJS.ErrnoException).code).toBe("ENOSPC");
    expect(existsSync(`${file}.lock`)).toBe(false);
    await free();
    const lock = await SessionLock.acquire(file);
    expect(existsSync(`${file}.lock`)).toBe(true);
    await lock.release();
  });
});
