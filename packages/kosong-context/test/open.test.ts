import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { userMessage } from "@kosong/core";
import { ContextStorageError, JsonlContextFile, JsonlLinearStorage, StorageOpenError } from "@kosong/context";
import { tempDir } from "@kosong/test-support";

/** The error `promise` rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<StorageOpenError> {
  const error: unknown = await promise.then(
    () => expect.fail("expected a rejection"),
    (e: unknown) => e,
  );
  expect(StorageOpenError.isInstance(error)).toBe(true);
  expect(ContextStorageError.isInstance(error)).toBe(true);
  return error as StorageOpenError;
}

describe("opening a context file where it cannot be", () => {
  it("names the file and its missing folder, with the ENOENT as cause, and creates no folder", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "sessions", "context.jsonl");
    for (const lock of [true, false]) {
      const error = await rejection(JsonlContextFile.open(file, { lock }));
      expect(error.message).toBe(`cannot open ${file}: its folder ${path.join(dir, "sessions")} does not exist (opening does not create folders)`);
      expect(error.path).toBe(file);
      expect((error.cause as NodeJS.ErrnoException).code).toBe("ENOENT");
    }
    expect(await readdir(dir)).toEqual([]);
  });

  it("says the path is a directory, leaving no lock file beside it", async () => {
    const dir = await tempDir();
    const folder = path.join(dir, "context.jsonl");
    await mkdir(folder);
    for (const lock of [true, false]) {
      const error = await rejection(JsonlContextFile.open(folder, { lock }));
      expect(error.message).toBe(`cannot open ${folder}: it is a directory`);
    }
    expect(await readdir(dir)).toEqual(["context.jsonl"]);
  });

  it("says which part of the path is a file rather than a folder", async () => {
    const dir = await tempDir();
    const notFolder = path.join(dir, "notes.txt");
    await writeFile(notFolder, "keep me");
    const error = await rejection(JsonlContextFile.open(path.join(notFolder, "context.jsonl")));
    expect(error.message).toBe(`cannot open ${path.join(notFolder, "context.jsonl")}: ${notFolder} is not a folder`);
    expect(await readFile(notFolder, "utf8")).toBe("keep me");
  });

  it("wraps any other file-system refusal, naming the file and keeping the original as cause", async () => {
    const dir = await tempDir();
    const loop = path.join(dir, "context.jsonl");
    await symlink(loop, loop);
    const error = await rejection(JsonlContextFile.open(loop));
    expect(error.message).toMatch(new RegExp(`^cannot open ${loop.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: ELOOP`));
    expect((error.cause as NodeJS.ErrnoException).code).toBe("ELOOP");
    expect(await readdir(dir)).toEqual(["context.jsonl"]);
  });
});

describe("JsonlLinearStorage where its file cannot be", () => {
  it("rejects restore() and appends with StorageOpenError, then works once the folder exists", async () => {
    const dir = await tempDir();
    const folder = path.join(dir, "sessions");
    const file = path.join(folder, "context.jsonl");
    const storage = new JsonlLinearStorage(file);
    expect((await rejection(storage.restore())).message).toContain("does not exist");
    expect((await rejection(storage.appendMessage(userMessage("lost?")))).message).toContain("does not exist");
    expect(existsSync(folder)).toBe(false);

    await mkdir(folder);
    await storage.restore();
    await storage.appendMessage(userMessage("kept"));
    await storage.close();
    expect(await readFile(file, "utf8")).toBe('{"role":"user","content":"kept"}\n');
  });

  it("rejects an append to a directory with StorageOpenError", async () => {
    const dir = await tempDir();
    const error = await rejection(new JsonlLinearStorage(dir).appendMessage(userMessage("hi")));
    expect(error.message).toBe(`cannot open ${dir}: it is a directory`);
  });
});
