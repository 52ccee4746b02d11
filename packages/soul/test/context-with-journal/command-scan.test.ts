/**
 * The command scan on real files and real shell commands: what a command
 * wrote, created, deleted, chmodded or renamed is restored by a revert to the
 * checkpoint before it; what the root .gitignore ignores, and what a link
 * leads to outside the workspace, is neither scanned nor touched; over a
 * limit the command is not journaled and the notice says so.
 */
import { execFile } from "node:child_process";
import { link, mkdir, readdir, readFile, rm, rmdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { MAX_WALK_DEPTH, scanWorkspace, type FileJournal } from "@kosong/workspace";
import { describe, expect, it } from "vitest";
import { journaledSession, snapshot } from "./helpers/workspace.js";

const sh = promisify(execFile);

/** What the Shell tool does: scan, run the command with bash in the workspace, finish the scan. */
async function shell(journal: FileJournal, command: string) {
  const scan = await journal.scanCommand();
  await sh("bash", ["-c", command], { cwd: journal.files.root });
  return scan.finish();
}

describe("the command scan", () => {
  it("restores what shell commands wrote, created, deleted, chmodded and renamed, and leaves ignored files alone", async () => {
    const { root, session, journal, context } = await journaledSession();
    const at = (name: string) => path.join(root, name);
    await writeFile(at(".gitignore"), "# build output\n*.log\n/build/\n");
    await writeFile(at("edit.txt"), "hello\n");
    await writeFile(at("gone.txt"), "delete me\n");
    await writeFile(at("run.sh"), "#!/bin/sh\n", { mode: 0o644 });
    await writeFile(at("a"), "renamed\n");
    await mkdir(at("build"));
    await writeFile(at("build/out.o"), "old build\n");
    await writeFile(at("debug.log"), "old log\n");
    await symlink("/etc", at("etc-link"));
    await context.checkpoint();
    const before = await snapshot(root);

    const results = [];
    for (const command of ["echo x > new.txt", "sed -i s/hello/world/ edit.txt", "rm gone.txt", "chmod +x run.sh", "mv a b", "echo new > build/out.o; echo more >> debug.log"]) {
      results.push(await shell(journal, command));
    }
    expect(results.map((r) => r.changed)).toEqual([["new.txt"], ["edit.txt"], ["gone.txt"], ["run.sh"], ["a", "b"], []]);
    expect(results.every((r) => r.notice === null)).toBe(true);
    expect(await journal.changedAt(0)).toEqual(["a", "b", "edit.txt", "gone.txt", "new.txt", "run.sh"]);
    // Each command's listing (kept for a crash during it) is gone once it is over.
    expect(await readdir(path.join(session, "files", "scans"))).toEqual([]);

    const reverted = await context.revertTo(0);
    expect(reverted.files?.restored.sort()).toEqual(["a", "b", "edit.txt", "gone.txt", "new.txt", "run.sh"]);
    const after = await snapshot(root);
    // Everything is back but the ignored files, which the commands' changes kept.
    expect({ ...after, "build/out.o": "", "debug.log": "" }).toEqual({ ...before, "build/out.o": "", "debug.log": "" });
    expect(await readFile(at("build/out.o"), "utf8")).toBe("new\n");
    expect(await readFile(at("debug.log"), "utf8")).toBe("old log\nmore\n");
  });

  it("does not enter a link out of the workspace nor list ignored files", async () => {
    const { root } = await journaledSession();
    await writeFile(path.join(root, ".gitignore"), "node_modules/\n");
    await mkdir(path.join(root, "node_modules/x"), { recursive: true });
    await writeFile(path.join(root, "node_modules/x/i.js"), "");
    await symlink("/etc", path.join(root, "etc-link"));
    const scan = await scanWorkspace(root);
    expect([...(scan.stamps?.keys() ?? [])].sort()).toEqual([".gitignore", "etc-link"]);
    expect(scan.stamps?.get("etc-link")?.kind).toBe("link");
    // What it would have listed had it existed: not ignored, not .git, not through a link.
    const covers = scan.covers!;
    expect(["new.txt", "new/dir/file.txt", ".gitignore"].map(covers)).toEqual([true, true, true]);
    expect(["node_modules/x/i.js", "node_modules/y.js", ".git/config", "etc-link/passwd"].map(covers)).toEqual([false, false, false, false]);
  });

  it("reads contents through folder descriptors: a FIFO does not block it, a hard link and a big file are not read, a link is not followed", async () => {
    const { root } = await journaledSession();
    const at = (name: string) => path.join(root, name);
    await mkdir(at("sub"));
    await writeFile(at("sub/ok.txt"), "ok\n", { mode: 0o640 });
    await writeFile(at("big.bin"), Buffer.alloc(200));
    await writeFile(at("outside-twin"), "secret\n");
    await link(at("outside-twin"), at("sub/hard.txt"));
    await sh("mkfifo", [at("fifo")]);
    await symlink("/etc/passwd", at("sub/passwd"));
    const scan = await scanWorkspace(root, {}, { known: new Map(), maxFileBytes: 100 });
    const states = Object.fromEntries([...(scan.contents ?? [])].map(([key, { state }]) => [key, state]));
    expect(states["sub/ok.txt"]).toEqual({ kind: "file", data: Buffer.from("ok\n"), mode: 0o640 });
    expect(states["big.bin"]).toEqual({ kind: "too-large", size: 200 });
    expect(states["sub/hard.txt"]).toMatchObject({ kind: "unsupported", reason: expect.stringMatching(/hard links/) });
    expect(states["fifo"]).toMatchObject({ kind: "unsupported" });
    expect(states["sub/passwd"]).toEqual({ kind: "link", target: "/etc/passwd" });
    // A second scan keeps what it read when the stamp is the same, and reads again what changed.
    await writeFile(at("sub/ok.txt"), "changed, longer\n");
    const again = await scanWorkspace(root, {}, { known: scan.contents!, maxFileBytes: 100 });
    expect(again.contents?.get("big.bin")).toBe(scan.contents?.get("big.bin"));
    expect(again.contents?.get("sub/ok.txt")?.state).toMatchObject({ kind: "file", data: Buffer.from("changed, longer\n") });
  });

  it("says a command is not journaled when the workspace is over the scan's limits", async () => {
    for (const limits of [{ maxFiles: 3 }, { maxBytes: 10 }]) {
      const { root, journal, context } = await journaledSession({ commandScan: limits });
      for (const name of ["1", "2", "3", "4"]) await writeFile(path.join(root, name), "four bytes\n");
      await context.checkpoint();
      const { notice, changed } = await shell(journal, "echo changed > 1");
      expect(notice).toMatch(/over the scan's limit: what this command changes is not journaled, and a revert will not restore it/);
      expect(changed).toEqual([]);
      await context.revertTo(0);
      expect(await readFile(path.join(root, "1"), "utf8")).toBe("changed\n");
    }
  });

  it("stops listing a folder of many ignored entries instead of reading it to its end", async () => {
    const { root } = await journaledSession();
    await writeFile(path.join(root, ".gitignore"), "*.log\n");
    await Promise.all(Array.from({ length: 60 }, (_, i) => writeFile(path.join(root, `${i}.log`), "")));
    expect((await scanWorkspace(root, { maxFiles: 6 })).limitHit).toBe("the workspace lists more than 60 entries (ignored ones included)");
    expect((await scanWorkspace(root, { maxFiles: 7 })).stamps?.size).toBe(1);
  });

  it("says a workspace it cannot scan is not journaled instead of failing the command, and journals a command that removed it", async () => {
    const { root, journal, context } = await journaledSession();
    await writeFile(path.join(root, "kept.txt"), "kept\n");
    await context.checkpoint();
    const removing = await journal.scanCommand();
    await rm(root, { recursive: true });
    expect(await removing.finish()).toMatchObject({ changed: ["kept.txt"], notice: expect.stringMatching(/^the workspace could not be scanned \(ENOENT.*\) after the command/) });
    const scan = await journal.scanCommand();
    expect((await scan.finish()).notice).toMatch(/^the workspace could not be scanned \(ENOENT.*\), over the scan's limit: what this command changes is not journaled/);
    await mkdir(root);
    await context.revertTo(0);
    expect(await readFile(path.join(root, "kept.txt"), "utf8")).toBe("kept\n");
  });

  it("stops at folders nested deeper than it walks, with one descriptor open per level", async () => {
    const { root } = await journaledSession();
    const deep = path.join(root, ...Array.from({ length: MAX_WALK_DEPTH + 1 }, () => "d"));
    await mkdir(deep, { recursive: true });
    await writeFile(path.join(deep, "f"), "");
    expect((await scanWorkspace(root)).limitHit).toBe(`the workspace's folders nest more than ${MAX_WALK_DEPTH} deep`);
    await rm(path.join(deep, "f"));
    await rmdir(deep);
    expect((await scanWorkspace(root)).limitHit).toBeNull();
  });

  it("journals what changed, and says created files are not, when a command takes the workspace over the limit", async () => {
    const { root, journal, context } = await journaledSession({ commandScan: { maxFiles: 3 } });
    await writeFile(path.join(root, "1"), "one\n");
    await context.checkpoint();
    const { notice, changed } = await shell(journal, "echo changed > 1; touch 2 3 4");
    expect(notice).toMatch(/after the command, over the scan's limit: the files it created are not journaled/);
    expect(changed).toEqual(["1"]);
    await context.revertTo(0);
    expect(await readFile(path.join(root, "1"), "utf8")).toBe("one\n");
  });
});

describe("the files changed at each checkpoint", () => {
  it("lists, for every checkpoint at once, the files changed after it and before the next, on the conversation as it is after a revert", async () => {
    const { journal, context } = await journaledSession();
    await context.checkpoint(); // 0
    await shell(journal, "echo a > a.txt");
    await context.checkpoint(); // 1
    await shell(journal, "echo b > b.txt; echo c > c.txt");
    await context.checkpoint(); // 2
    await shell(journal, "echo gone > old-branch.txt");
    await context.revertTo(2);
    // Checkpoint 2 is made again on the new branch: what the old branch's command wrote is no longer listed.
    await context.checkpoint(); // 2
    await shell(journal, "echo d > d.txt; echo a2 > a.txt");
    await context.checkpoint(); // 3
    const ids = context.checkpoints.map((c) => c.id);
    expect(ids).toEqual([0, 1, 2, 3]);
    const each = await journal.changedAtEach([...ids, 9]);
    expect(Object.fromEntries(each)).toEqual({ 0: ["a.txt"], 1: ["b.txt", "c.txt"], 2: ["a.txt", "d.txt"], 3: [], 9: [] });
    for (const id of ids) expect(await journal.changedAt(id)).toEqual(each.get(id));
  });
});

describe("the files changed at each checkpoint after two reverts", () => {
  it("lists the newest checkpoint's changes although a checkpoint of the next id was left behind on an older branch", async () => {
    const { journal, context } = await journaledSession();
    await context.checkpoint(); // 0
    await context.checkpoint(); // 1
    await shell(journal, "echo one > one.txt");
    await context.checkpoint(); // 2
    await shell(journal, "echo two > two.txt");
    await context.revertTo(2);
    await context.checkpoint(); // 2, on the second branch
    await context.checkpoint(); // 3
    await context.revertTo(1);
    await context.checkpoint(); // 1, on the third branch: checkpoint 2 is behind it on the first branch
    await shell(journal, "echo x > x.txt");
    expect(context.checkpoints.map((c) => c.id)).toEqual([0, 1]);
    expect(Object.fromEntries(await journal.changedAtEach([0, 1]))).toEqual({ 0: [], 1: ["x.txt"] });
    expect(await journal.changedAt(1)).toEqual(["x.txt"]);
  });
});

describe("the files changed at a checkpoint after a revert that failed", () => {
  it("does not list the files the failed revert planned to restore under the newest checkpoint (nothing changed)", async () => {
    const { journal, context } = await journaledSession();
    await context.checkpoint(); // 0
    await shell(journal, "echo a > a.txt");
    await context.checkpoint(); // 1
    await shell(journal, "echo b > b.txt");
    // The context's step failed after the restore was planned: the journal is told to forget it.
    const pending = await journal.beginRestore("revert", { checkpoint: 0 }, "before");
    await journal.abortRestore(pending);
    expect(Object.fromEntries(await journal.changedAtEach([0, 1]))).toEqual({ 0: ["a.txt"], 1: ["b.txt"] });
    expect(await readFile(path.join(journal.files.root, "a.txt"), "utf8")).toBe("a\n");
  });
});
