/**
 * Inputs a probe found mishandled: each is a typed error at the first call
 * (or the right behaviour), and no file is changed. Unreadable and
 * read-only files are tried by a child process held to the file modes
 * (as root: without the capabilities that let root read and write anything); the full disk is a small tmpfs this
 * test mounts (it needs root; skipped otherwise).
 */
import { execFileSync } from "node:child_process";
import { chmod, lstat, mkdir, open, readFile, readdir, readlink, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userMessage } from "@kosong/core";
import {
  ContextStorageError,
  JsonlContextFile,
  JsonlLinearStorage,
  SessionLockedError,
  StorageOpenError,
  StorageWriteError,
} from "@kosong/context";
import { checkpointRecord, encodeRecord, messageRecord, readContextFile, systemPromptRecord, type ContextRecord } from "@kosong/context/records";
import { assertDistIsFresh, startChild } from "./helpers/child.js";
import { tempDir } from "@kosong/test-support";

const line = (record: ContextRecord) => `${encodeRecord(record)}\n`;
const msg = (text: string) => messageRecord(userMessage(text));

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error as Error,
  );
}

describe("a context file that is a symbolic link", () => {
  it("is written through to its target: the link stays a link, each rotation is a file of its own beside the target", async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, "real"));
    const target = path.join(dir, "real", "context.jsonl");
    const link = path.join(dir, "context.jsonl");
    await writeFile(target, line(checkpointRecord(0)) + line(msg("before")));
    await symlink(target, link);

    const ctx = await JsonlContextFile.open(link);
    expect(ctx.location).toBe(target);
    // One lock for both names: the target's.
    expect((await rejection(JsonlContextFile.open(target))) instanceof SessionLockedError).toBe(true);
    await ctx.append([checkpointRecord(1), msg("after")]);
    const old = await readFile(target);
    const rotation = await ctx.truncateAndRotate((await ctx.read()).checkpoints[1]!.position);
    expect(rotation.location).toBe(path.join(dir, "real", "context_1.jsonl"));
    expect((await lstat(rotation.location)).isFile()).toBe(true);
    expect(await readFile(rotation.location)).toEqual(old);

    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(target);
    await ctx.append([msg("a new branch")]);
    expect(await readFile(rotation.location)).toEqual(old);
    expect(await readFile(link, "utf8")).toBe(line(checkpointRecord(0)) + line(msg("before")) + line(msg("a new branch")));
    await ctx.close();
  });

  it("that dangles is refused at open with StorageOpenError, and nothing is created", async () => {
    const dir = await tempDir();
    const link = path.join(dir, "context.jsonl");
    await symlink(path.join(dir, "gone.jsonl"), link);
    const error = await rejection(JsonlContextFile.open(link));
    expect(StorageOpenError.isInstance(error)).toBe(true);
    expect(error.message).toBe(`cannot open ${link}: it is a symbolic link to a file that does not exist`);
    expect(await readdir(dir)).toEqual(["context.jsonl"]);
  });
});

describe("a file that is not a regular file", () => {
  it("a FIFO is refused with StorageOpenError by every way in (no call blocks)", async () => {
    const dir = await tempDir();
    const fifo = path.join(dir, "context.jsonl");
    execFileSync("mkfifo", [fifo]);
    const expected = `cannot open ${fifo}: it is not a regular file (a FIFO, socket or device)`;
    const attempts = [() => JsonlContextFile.open(fifo), () => new JsonlLinearStorage(fifo).restore(), () => readContextFile(fifo)];
    for (const attempt of attempts) {
      // One at a time: a rejection started early would go unhandled while the one before it is awaited.
      const error = await rejection(attempt());
      expect(StorageOpenError.isInstance(error), String(error)).toBe(true);
      expect(error.message).toBe(expected);
    }
    expect(await readdir(dir)).toEqual(["context.jsonl"]);
  });

  it("a device behind a link is refused at open (appends would vanish into it)", async () => {
    const link = path.join(await tempDir(), "context.jsonl");
    await symlink("/dev/null", link);
    const error = await rejection(JsonlContextFile.open(link));
    expect(StorageOpenError.isInstance(error)).toBe(true);
    expect(error.message).toContain("not a regular file");
  });

  it("readContextFile on a directory is a StorageOpenError, not a raw EISDIR", async () => {
    const dir = await tempDir();
    const error = await rejection(readContextFile(dir));
    expect(StorageOpenError.isInstance(error)).toBe(true);
    expect(error.message).toBe(`cannot open ${dir}: it is a directory`);
  });
});

describe("files this user may not read or write", () => {
  beforeAll(assertDistIsFresh);

  /** Runs a child command held to the file modes (root without its file-access capabilities); its one output line. */
  async function asUnprivileged(command: "open" | "read", file: string): Promise<string> {
    const child = startChild([command, file], { obeyFileModes: true });
    const { code } = await child.exited;
    expect(code, child.stderr()).toBe(0);
    return child.lines[0]!;
  }

  async function sharedDir(): Promise<string> {
    const dir = await tempDir();
    // Anyone may enter and create files here (the lock file), as in a shared folder.
    await chmod(dir, 0o777);
    return dir;
  }

  it("readContextFile of an unreadable file is a StorageOpenError", async () => {
    const file = path.join(await sharedDir(), "context.jsonl");
    await writeFile(file, line(msg("secret")));
    await chmod(file, 0o000);
    expect(await asUnprivileged("read", file)).toMatch(new RegExp(`^StorageOpenError: cannot open ${file}: it cannot be read \\(EACCES`));
  });

  it("a read-only file is refused at open, not at the first append", async () => {
    const file = path.join(await sharedDir(), "context.jsonl");
    await writeFile(file, line(msg("kept")));
    await chmod(file, 0o444);
    expect(await asUnprivileged("open", file)).toMatch(new RegExp(`^StorageOpenError: cannot open ${file}: it cannot be written \\(EACCES`));
    expect(await readFile(file, "utf8")).toBe(line(msg("kept")));
    expect(await asUnprivileged("read", file)).toBe("read 1");
  });
});

describe("prepend before a file that starts with a UTF-8 byte-order mark", () => {
  it("drops the mark, so the old first record stays readable", async () => {
    const file = path.join(await tempDir(), "context.jsonl");
    const content = line(checkpointRecord(0)) + line(msg("first"));
    await writeFile(file, `\uFEFF${content}`);
    const ctx = await JsonlContextFile.open(file);
    await ctx.prepend([systemPromptRecord("late prompt")]);
    expect(await readFile(file, "utf8")).toBe(line(systemPromptRecord("late prompt")) + content);
    const state = await ctx.read();
    expect(state.report.skipped).toEqual([]);
    expect([state.systemPrompt, state.messages.length, state.checkpoints.length]).toEqual(["late prompt", 1, 1]);
    expect(ctx.size).toBe(Buffer.byteLength(await readFile(file, "utf8")));
    await ctx.append([msg("second")]);
    expect((await ctx.read()).messages).toHaveLength(2);
    await ctx.close();
  });
});

describe("a full disk", () => {
  let disk: string | null = null;

  beforeAll(async () => {
    const dir = await tempDir();
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "kosong-context-full", dir], { stdio: "ignore" });
      disk = dir;
    } catch {
      disk = null;
    }
  });

  afterAll(() => {
    if (disk !== null) execFileSync("umount", [disk]);
  });

  /** Fills the rest of the disk; returns the filler, whose removal frees it. */
  async function fill(): Promise<string> {
    const filler = path.join(disk!, "filler");
    const chunk = Buffer.alloc(16 * 1024, 120);
    const handle = await open(filler, "a");
    try {
      for (;;) await handle.write(chunk);
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe("ENOSPC");
    } finally {
      await handle.close();
    }
    return filler;
  }

  it("fails every write with a StorageWriteError (ENOSPC as cause), leaves every file as it was, and works again once there is room", async (test) => {
    if (disk === null) return test.skip("mounting a small tmpfs needs root");
    const file = path.join(disk, "context.jsonl");
    const ctx = await JsonlContextFile.open(file);
    for (let i = 0; i < 4; i += 1) await ctx.append([checkpointRecord(i), msg(`turn ${i} ${"x".repeat(60_000)}`)]);
    const marks = (await ctx.read()).checkpoints.map((c) => c.position);
    await ctx.truncateAndRotate(marks[3]!);
    await ctx.append([checkpointRecord(3), msg(`turn 3 again ${"y".repeat(60_000)}`)]);
    const old = await readFile(file);
    const rotationBytes = await readFile(path.join(disk, "context_1.jsonl"));
    const filler = await fill();

    const attempts: Array<[string, () => Promise<unknown>]> = [
      ["append", () => ctx.append([msg(`no room ${"z".repeat(20_000)}`)])],
      ["truncate-with-rotation", () => ctx.truncateAndRotate(marks[2]!)],
      ["prepend", () => ctx.prepend([systemPromptRecord("no room")])],
      ["restoring rotation 1", () => ctx.restoreRotation(1)],
    ];
    for (const [name, attempt] of attempts) {
      const error = await rejection(attempt());
      expect(StorageWriteError.isInstance(error) && ContextStorageError.isInstance(error), `${name}: ${String(error)}`).toBe(true);
      expect((error.cause as NodeJS.ErrnoException).code, name).toBe("ENOSPC");
      expect(await readFile(file), name).toEqual(old);
      expect((await readdir(disk)).sort(), name).toEqual(["context.jsonl", "context.jsonl.lock", "context_1.jsonl", "filler"]);
      expect(await readFile(path.join(disk, "context_1.jsonl")), name).toEqual(rotationBytes);
    }

    await rm(filler);
    await ctx.prepend([systemPromptRecord("room again")]);
    await ctx.append([msg("after")]);
    const state = await ctx.read();
    expect(state.systemPrompt).toBe("room again");
    expect(state.messages.at(-1)).toEqual(userMessage("after"));
    await ctx.close();
  });
});
