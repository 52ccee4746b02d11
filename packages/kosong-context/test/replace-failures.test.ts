/**
 * Failures inside a whole-file operation, after the old file may already be
 * linked as a rotation and before the new file is renamed over it, and an
 * append whose failed bytes cannot be cut off again. A real disk cannot be
 * made to fail a rename, a link or a truncate on cue, so these calls are
 * wrapped to fail; everything else is the real file system.
 */
import * as fs from "node:fs/promises";
import { readFile, readdir, stat } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { userMessage } from "@kosong/core";
import { InvalidOffsetError, JsonlContextFile, StorageWriteError } from "@kosong/context";
import { checkpointRecord, messageRecord, readContextFile } from "@kosong/context/records";
import { tempDir } from "@kosong/test-support";

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return { ...actual, link: vi.fn(actual.link), open: vi.fn(actual.open), rename: vi.fn(actual.rename) };
});

const eio = () => Object.assign(new Error("EIO: i/o error (injected)"), { code: "EIO" });

afterEach(async () => {
  const actual = await vi.importActual<typeof import("node:fs/promises")>("node:fs/promises");
  vi.mocked(fs.link).mockReset().mockImplementation(actual.link);
  vi.mocked(fs.open).mockReset().mockImplementation(actual.open);
  vi.mocked(fs.rename).mockReset().mockImplementation(actual.rename);
});

async function seeded(): Promise<{ dir: string; file: string; ctx: JsonlContextFile; marks: number[] }> {
  const dir = await tempDir();
  const file = path.join(dir, "context.jsonl");
  const ctx = await JsonlContextFile.open(file);
  const marks: number[] = [];
  for (let i = 0; i < 4; i += 1) {
    marks.push((await ctx.append([checkpointRecord(i)])).position);
    await ctx.append([messageRecord(userMessage(`turn ${i} ${"x".repeat(400_000)}`))]);
  }
  return { dir, file, ctx, marks };
}

/** The file is as it was: same bytes, its own inode, no rotation and no temp file beside it. */
async function expectUntouched(dir: string, file: string, old: Buffer): Promise<void> {
  expect((await readdir(dir)).sort()).toEqual(["context.jsonl", "context.jsonl.lock"]);
  expect(await readFile(file)).toEqual(old);
  expect((await stat(file)).nlink).toBe(1);
}

describe("a whole-file operation that fails before its rename", () => {
  it("truncate: a failed rename after the link drops the rotation and the temp file; the next truncate works", async () => {
    const { dir, file, ctx, marks } = await seeded();
    const old = await readFile(file);
    const actual = await vi.importActual<typeof import("node:fs/promises")>("node:fs/promises");
    vi.mocked(fs.rename).mockImplementationOnce(async () => {
      // The rotation is linked by now: the failure comes between the link and the rename.
      expect(await readdir(dir)).toContain("context_1.jsonl");
      throw eio();
    });
    await expect(ctx.truncateAndRotate(marks[2]!)).rejects.toThrow("injected");
    await expectUntouched(dir, file, old);
    expect(ctx.size).toBe(old.length);
    vi.mocked(fs.rename).mockImplementation(actual.rename);

    const rotation = await ctx.truncateAndRotate(marks[2]!);
    expect(rotation.n).toBe(1);
    expect(await readFile(rotation.location)).toEqual(old);
    expect(await readFile(file)).toEqual(old.subarray(0, marks[2]));
    await ctx.close();
  });

  it("truncate with records: a failed rename leaves the old file whole, without the records; appends go on at its end", async () => {
    const { dir, file, ctx, marks } = await seeded();
    const old = await readFile(file);
    vi.mocked(fs.rename).mockRejectedValueOnce(eio());
    await expect(ctx.truncateAndRotate(0, [checkpointRecord(0), messageRecord(userMessage("compacted"))])).rejects.toBeInstanceOf(StorageWriteError);
    await expectUntouched(dir, file, old);
    const next = await ctx.append([messageRecord(userMessage("after"))]);
    expect(next.position).toBe(old.length);

    const truncation = await ctx.truncateAndRotate(marks[1]!, [checkpointRecord(1), messageRecord(userMessage("instead"))]);
    const state = await readContextFile(file);
    expect(state.messages.map((m) => (m.content[0] as { text: string }).text.slice(0, 7))).toEqual(["turn 0 ", "instead"]);
    expect(state.checkpoints.map((c) => c.position)).toEqual([marks[0], truncation.positions[0]]);
    expect((await readFile(file)).subarray(0, marks[1]).equals(old.subarray(0, marks[1]))).toBe(true);
    await ctx.close();
  });

  it("truncate: a failed link, after the prefix is copied, leaves no temp file and no rotation", async () => {
    const { dir, file, ctx, marks } = await seeded();
    const old = await readFile(file);
    vi.mocked(fs.link).mockRejectedValueOnce(eio());
    await expect(ctx.truncateAndRotate(marks[3]!)).rejects.toThrow("injected");
    await expectUntouched(dir, file, old);
    await ctx.append([messageRecord(userMessage("still appendable"))]);
    expect((await ctx.read()).messages).toHaveLength(5);
    await ctx.close();
  });

  it("truncate: an offset that is not a line start is rejected before anything is linked", async () => {
    const { dir, file, ctx, marks } = await seeded();
    const old = await readFile(file);
    await expect(ctx.truncateAndRotate(marks[3]! - 7)).rejects.toBeInstanceOf(InvalidOffsetError);
    expect(fs.link).not.toHaveBeenCalled();
    await expectUntouched(dir, file, old);
    await ctx.close();
  });

  it("restoreRotation: a failed rename keeps the current file and drops the rotation it had linked", async () => {
    const { dir, file, ctx, marks } = await seeded();
    const old = await readFile(file);
    const cleared = await ctx.truncateAndRotate(marks[1]!);
    const current = await readFile(file);
    vi.mocked(fs.rename).mockRejectedValueOnce(eio());
    await expect(ctx.restoreRotation(cleared.n)).rejects.toThrow("injected");
    expect((await readdir(dir)).sort()).toEqual(["context.jsonl", "context.jsonl.lock", "context_1.jsonl"]);
    expect(await readFile(file)).toEqual(current);
    expect(await readFile(cleared.location)).toEqual(old);
    expect((await stat(file)).nlink).toBe(1);
    await ctx.close();
  });
});

describe("where hard links are unsupported (link fails with EPERM)", () => {
  const eperm = () => Object.assign(new Error("EPERM: operation not permitted, link"), { code: "EPERM" });

  it("the rotation is a complete copy of the old file, renamed into place", async () => {
    const { dir, file, ctx, marks } = await seeded();
    const old = await readFile(file);
    vi.mocked(fs.link).mockRejectedValue(eperm());
    const rotation = await ctx.truncateAndRotate(marks[2]!);
    expect(rotation).toEqual({ n: 1, location: path.join(dir, "context_1.jsonl"), positions: [], end: marks[2] });
    expect(await readFile(rotation.location)).toEqual(old);
    expect(await readFile(file)).toEqual(old.subarray(0, marks[2]));
    expect((await readdir(dir)).sort()).toEqual(["context.jsonl", "context.jsonl.lock", "context_1.jsonl"]);
    await ctx.close();
  });

  it("a copy that cannot be renamed into place leaves no rotation at all (never an empty one) and no temp file", async () => {
    const { dir, file, ctx, marks } = await seeded();
    const old = await readFile(file);
    vi.mocked(fs.link).mockRejectedValue(eperm());
    // The first rename is the copied rotation's, from its temp name to context_1.jsonl.
    vi.mocked(fs.rename).mockRejectedValueOnce(eio());
    await expect(ctx.truncateAndRotate(marks[2]!)).rejects.toThrow("injected");
    await expectUntouched(dir, file, old);
    await ctx.close();
  });
});

describe("an append whose failed write cannot be cut off again", () => {
  it("rejects with StorageWriteError and marks the file broken: every later call rejects with that error", async () => {
    const { file, ctx, marks } = await seeded();
    // A truncate closes the append handle: the next append opens a new one, through the wrapped open.
    await ctx.truncateAndRotate(marks[3]!);
    const actual = await vi.importActual<typeof import("node:fs/promises")>("node:fs/promises");
    // The append handle writes part of the batch, then the disk fails, and cutting the part off fails too.
    vi.mocked(fs.open).mockImplementation(async (...args: Parameters<typeof actual.open>) => {
      const handle = await actual.open(...args);
      if (!String(args[1]).startsWith("a")) return handle;
      const write = handle.writev.bind(handle);
      return Object.assign(handle, {
        writev: async () => {
          await write([Buffer.from("partial")]);
          throw Object.assign(new Error("EIO: i/o error (injected)"), { code: "EIO" });
        },
        truncate: async () => {
          throw Object.assign(new Error("EIO: truncate failed (injected)"), { code: "EIO" });
        },
      });
    });
    const failed = await ctx.append([messageRecord(userMessage("lost"))]).catch((error: unknown) => error);
    expect(StorageWriteError.isInstance(failed)).toBe(true);
    expect((failed as Error).message).toContain("injected");
    await expect(ctx.append([messageRecord(userMessage("later"))])).rejects.toBe(failed);
    await expect(ctx.truncateAndRotate(0)).rejects.toBe(failed);
    await ctx.close();
    // Reopened, the torn bytes are a damaged last line: skipped and reported, everything before kept.
    vi.mocked(fs.open).mockImplementation(actual.open);
    const state = await readContextFile(file);
    expect(state.messages).toHaveLength(3);
    expect(state.report.skipped.map((s) => s.kind)).toEqual(["torn"]);
  });
});
