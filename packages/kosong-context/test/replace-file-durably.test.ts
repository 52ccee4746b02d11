/**
 * `replaceFileDurably` on real files: the new bytes replace the file whole
 * with the permission bits asked for, and a replace that fails leaves the
 * file as it was and no temp file behind. (That the temp file and the folder
 * are synced around the rename is watched with strace on the CLI, which
 * writes its session files through it: apps/cli's durable-replace test.)
 */
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { replaceFileDurably } from "@kosong/context";
import { tempDir } from "@kosong/test-support";
import { assertDistIsFresh } from "./helpers/child.js";

describe("replaceFileDurably", () => {
  beforeAll(assertDistIsFresh);

  it("replaces a file whole, owner-only by default or with the bits asked for", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "meta.json");
    await replaceFileDurably(file, "a much longer first version\n");
    await replaceFileDurably(file, "short\n");
    expect(await readFile(file, "utf8")).toBe("short\n");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await replaceFileDurably(file, Buffer.from("bytes\n"), 0o644);
    expect(await readFile(file, "utf8")).toBe("bytes\n");
    expect((await stat(file)).mode & 0o777).toBe(0o644);
    expect(await readdir(dir)).toEqual(["meta.json"]);
  });

  it("leaves what is in the file's place, and no temp file, when the rename fails", async () => {
    const dir = await tempDir();
    const blocked = path.join(dir, "blocked");
    await mkdir(blocked);
    await writeFile(path.join(blocked, "inside"), "kept");
    await expect(replaceFileDurably(blocked, "new\n")).rejects.toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(await readdir(dir)).toEqual(["blocked"]);
    expect(await readFile(path.join(blocked, "inside"), "utf8")).toBe("kept");
  });
});
