import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { replaceFile } from "../src/files/replace-file.js";
import { createSession, listSessions, recordCompaction, recordFirstPrompt } from "../src/sessions/session-store.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

describe("replaceFile", () => {
  it("keeps a session listed while its session.json is rewritten: a reader never sees a half-written file", async () => {
    const home = await tempDir();
    const session = await createSession(home, "/work/a");
    await recordFirstPrompt(session, "fix the flaky test");
    const missed: number[] = [];
    await Promise.all([
      (async () => {
        for (let round = 0; round < 300; round += 1) await recordCompaction(session, round % 2 === 0 ? "smart" : "simple");
      })(),
      (async () => {
        for (let round = 0; round < 300; round += 1) if ((await listSessions(home)).length !== 1) missed.push(round);
      })(),
    ]);
    expect(missed).toEqual([]);
    expect((await listSessions(home))[0]).toMatchObject({ id: session.id, firstPrompt: "fix the flaky test", compaction: "simple" });
  });

  it("writes a private file and leaves the old one, and no temporary file, when the replace fails", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "state.json");
    await replaceFile(file, "first\n");
    expect(await readFile(file, "utf8")).toBe("first\n");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // A folder in the file's place: the rename fails (EISDIR) after the temporary file was written.
    const blocked = path.join(dir, "blocked");
    await mkdir(blocked);
    await writeFile(path.join(blocked, "inside"), "kept");
    await expect(replaceFile(blocked, "second\n")).rejects.toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect((await readdir(dir)).sort()).toEqual(["blocked", "state.json"]);
    expect(await readFile(path.join(blocked, "inside"), "utf8")).toBe("kept");
  });
});
