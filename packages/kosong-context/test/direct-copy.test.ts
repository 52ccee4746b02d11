/**
 * The durable copy behind truncate-with-rotation, prepend and restoring a
 * rotation: the new file's 4096-byte aligned bulk is written with O_DIRECT
 * where the file system takes it, the tail buffered, and everything
 * buffered otherwise. Both paths must give the same bytes.
 *
 * White-box exception: which path a copy took is not observable through the
 * public API, so this file, and only this file, imports the package-internal
 * `directCopy` state from ../src/durable-fs.js: its counters, its switch
 * (`enabled: false` forces the buffered path), `minBytes` (lowered to 0 to
 * take the direct path for small files) and the devices it gave up on.
 * A refused direct write (EINVAL) cannot be caused on cue on a real disk, so
 * one test wraps `open` to make the O_DIRECT descriptor refuse; everything
 * else runs on the real file system (the OS temp dir).
 */
import { constants } from "node:fs";
import * as fs from "node:fs/promises";
import { readFile, readdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it, vi, type TestContext } from "vitest";
import { userMessage } from "@kosong/core";
import { InvalidOffsetError, JsonlContextFile } from "@kosong/context";
import { encodeRecord, messageRecord, systemPromptRecord, type ContextRecord } from "@kosong/context/records";
import { directCopy } from "../src/durable-fs.js";
import { tempDir } from "./helpers/temp-dir.js";

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return { ...actual, open: vi.fn(actual.open) };
});

const O_DIRECT: number | undefined = constants.O_DIRECT;
const PIECE = 2 * 1024 * 1024;
const defaults = { enabled: directCopy.enabled, minBytes: directCopy.minBytes };

afterEach(() => {
  vi.mocked(fs.open).mockReset();
  directCopy.enabled = defaults.enabled;
  directCopy.minBytes = defaults.minBytes;
  directCopy.unsupported.clear();
});

/** True where the OS temp dir's file system accepts an O_DIRECT descriptor (Linux on ext4, xfs, ...). */
async function directSupported(dir: string): Promise<boolean> {
  if (O_DIRECT === undefined) return false;
  const probe = path.join(dir, "probe");
  try {
    await (await fs.open(probe, constants.O_WRONLY | constants.O_CREAT | O_DIRECT)).close();
    return true;
  } catch {
    return false;
  } finally {
    await fs.rm(probe, { force: true });
  }
}

async function requireDirect(t: TestContext, dir: string): Promise<void> {
  if (!(await directSupported(dir))) t.skip("the temp dir's file system does not take O_DIRECT");
}

const line = (record: ContextRecord) => Buffer.from(`${encodeRecord(record)}\n`);
const EMPTY_LINE = line(messageRecord(userMessage(""))).length;

/** One message line of exactly `bytes` bytes. */
function lineOf(bytes: number, tag: number): Buffer {
  const text = `${tag} `.padEnd(bytes - EMPTY_LINE, "abcdefghij");
  const out = line(messageRecord(userMessage(text)));
  if (out.length !== bytes) throw new Error(`line of ${out.length} bytes, wanted ${bytes}`);
  return out;
}

/** Message lines such that a line starts at each of `starts` (ascending, each past the previous by a line), then one more. */
function fileWithLineStarts(starts: readonly number[]): Buffer {
  const lines: Buffer[] = [];
  let size = 0;
  for (const target of [...starts, (starts.at(-1) ?? 0) + 5000]) {
    while (size < target) {
      const rest = target - size;
      const bytes = rest > 2 * 64_000 ? 64_000 : rest > 64_000 ? Math.ceil(rest / 2) : rest;
      lines.push(lineOf(bytes, lines.length));
      size += bytes;
    }
  }
  return Buffer.concat(lines);
}

async function fileOf(bytes: Buffer, name = "context.jsonl"): Promise<{ dir: string; file: string; ctx: JsonlContextFile }> {
  const dir = await tempDir();
  const file = path.join(dir, name);
  await writeFile(file, bytes);
  return { dir, file, ctx: await JsonlContextFile.open(file) };
}

/** Truncates a fresh copy of `bytes` at `offset`; returns the new file and checks the rotation and the directory. */
async function truncated(bytes: Buffer, offset: number): Promise<Buffer> {
  const { dir, file, ctx } = await fileOf(bytes);
  const rotation = await ctx.truncateAndRotate(offset);
  await ctx.close();
  expectBytes(await readFile(rotation.location), bytes);
  expect((await readdir(dir)).sort()).toEqual(["context.jsonl", "context_1.jsonl"]);
  return readFile(file);
}

/** `actual` has exactly the bytes of `expected` (Buffer.equals: toEqual on MiB-sized buffers is slow). */
function expectBytes(actual: Buffer, expected: Buffer, label = ""): void {
  if (actual.equals(expected)) return;
  let at = 0;
  while (at < Math.min(actual.length, expected.length) && actual[at] === expected[at]) at += 1;
  expect.fail(`${label} ${actual.length} bytes, expected ${expected.length}; first difference at byte ${at}`);
}

const counts = () => ({ direct: directCopy.direct, fallbacks: directCopy.fallbacks });

describe("truncate-with-rotation's prefix copy", () => {
  it("writes a big prefix with direct writes where the disk takes them (prefix not a multiple of 4096, across slots)", async (t) => {
    const offset = 2 * PIECE + 3 * 4096 + 123;
    const bytes = fileWithLineStarts([offset]);
    const { dir, file, ctx } = await fileOf(bytes);
    await requireDirect(t, dir);
    const before = counts();
    const rotation = await ctx.truncateAndRotate(offset);
    expect(counts()).toEqual({ direct: before.direct + 1, fallbacks: before.fallbacks });
    expectBytes(await readFile(file), bytes.subarray(0, offset));
    expectBytes(await readFile(rotation.location), bytes);
    // The new file is usable as before: appends land after the kept prefix.
    const after = messageRecord(userMessage("after"));
    await ctx.append([after]);
    expectBytes(await readFile(file), Buffer.concat([bytes.subarray(0, offset), line(after)]));
    await ctx.close();
  });

  it("gives the same bytes on the direct and the buffered path: empty, < 4096, exactly aligned, tail in a fresh slot, slots reused", async () => {
    const offsets = [0, 1000, 4096, 3 * 4096 + 517, PIECE, PIECE + 300, 2 * PIECE + 4096 * 5 + 7, 3 * PIECE - 1];
    const bytes = fileWithLineStarts(offsets.filter((offset) => offset > 0));
    for (const offset of offsets) {
      directCopy.enabled = false;
      const buffered = await truncated(bytes, offset);
      directCopy.enabled = true;
      directCopy.minBytes = 0;
      const direct = await truncated(bytes, offset);
      expectBytes(buffered, bytes.subarray(0, offset), `buffered, offset ${offset}:`);
      expectBytes(direct, bytes.subarray(0, offset), `direct, offset ${offset}:`);
    }
  });

  it("takes the direct path from 4096 bytes on (minBytes 0), the buffered one below and when switched off", async (t) => {
    const bytes = fileWithLineStarts([1000, 4096, 3 * 4096 + 517]);
    await requireDirect(t, await tempDir());
    directCopy.minBytes = 0;
    const taken = async (offset: number) => {
      const before = directCopy.direct;
      await truncated(bytes, offset);
      return directCopy.direct - before;
    };
    expect(await taken(1000)).toBe(0);
    expect(await taken(4096)).toBe(1);
    expect(await taken(3 * 4096 + 517)).toBe(1);
    directCopy.enabled = false;
    expect(await taken(3 * 4096 + 517)).toBe(0);
  });

  it("checks the line start on the direct path too: a mid-line offset leaves no rotation and no temp file", async () => {
    const offset = PIECE + 4096 * 2 + 50;
    const bytes = fileWithLineStarts([offset]);
    const { dir, file, ctx } = await fileOf(bytes);
    await expect(ctx.truncateAndRotate(offset + 1)).rejects.toBeInstanceOf(InvalidOffsetError);
    await expect(ctx.truncateAndRotate(offset - 1)).rejects.toBeInstanceOf(InvalidOffsetError);
    expect((await readdir(dir)).sort()).toEqual(["context.jsonl", "context.jsonl.lock"]);
    expectBytes(await readFile(file), bytes);
    await ctx.close();
  });

  it("runs concurrent truncates of several files in one process, each with its own bytes", async (t) => {
    const offsets = [PIECE + 4096 + 1, 2 * PIECE + 77, PIECE * 1.5 + 3];
    const files = await Promise.all(offsets.map((offset) => fileOf(fileWithLineStarts([offset]))));
    await requireDirect(t, files[0]!.dir);
    const olds = await Promise.all(files.map(({ file }) => readFile(file)));
    const before = counts();
    const rotations = await Promise.all(files.map(({ ctx }, i) => ctx.truncateAndRotate(offsets[i]!)));
    expect(counts()).toEqual({ direct: before.direct + files.length, fallbacks: before.fallbacks });
    for (const [i, { file, ctx }] of files.entries()) {
      expectBytes(await readFile(file), olds[i]!.subarray(0, offsets[i]));
      expectBytes(await readFile(rotations[i]!.location), olds[i]!);
      await ctx.close();
    }
  });
});

describe("when direct writes are refused", () => {
  /** Makes every O_DIRECT descriptor fail its `nth` write with `code`. */
  async function refuseDirectWrites(code: string, nth: number): Promise<{ directOpens: () => number }> {
    const actual = await vi.importActual<typeof import("node:fs/promises")>("node:fs/promises");
    let opens = 0;
    vi.mocked(fs.open).mockImplementation(async (...args: Parameters<typeof fs.open>) => {
      const handle = await actual.open(...args);
      const flags = args[1];
      if (typeof flags === "number" && O_DIRECT !== undefined && (flags & O_DIRECT) !== 0) {
        opens += 1;
        const write = handle.write.bind(handle) as (...a: unknown[]) => Promise<unknown>;
        let writes = 0;
        Object.assign(handle, {
          write: async (...a: unknown[]) => {
            writes += 1;
            if (writes === nth) throw Object.assign(new Error(`${code}: injected`), { code });
            return write(...a);
          },
        });
      }
      return handle;
    });
    return { directOpens: () => opens };
  }

  it("EINVAL: the file is written buffered from the start, and the device is not tried again", async (t) => {
    const offset = 2 * PIECE + 4096 + 9;
    const bytes = fileWithLineStarts([offset, offset + 20_000]);
    const { dir, file, ctx } = await fileOf(bytes);
    await requireDirect(t, dir);
    const refusing = await refuseDirectWrites("EINVAL", 2);
    const before = counts();
    await ctx.truncateAndRotate(offset + 20_000);
    expect(counts()).toEqual({ direct: before.direct, fallbacks: before.fallbacks + 1 });
    expectBytes(await readFile(file), bytes.subarray(0, offset + 20_000));
    expect(directCopy.unsupported.has((await stat(file)).dev)).toBe(true);
    // The next copy on this device is buffered without opening an O_DIRECT descriptor.
    await ctx.truncateAndRotate(offset);
    expect(refusing.directOpens()).toBe(1);
    expect(counts()).toEqual({ direct: before.direct, fallbacks: before.fallbacks + 1 });
    expectBytes(await readFile(file), bytes.subarray(0, offset));
    expect((await readdir(dir)).sort()).toEqual(["context.jsonl", "context.jsonl.lock", "context_1.jsonl", "context_2.jsonl"]);
    await ctx.close();
  });

  it("another error (EIO) fails the truncate: the file stays as it was, with no rotation and no temp file", async (t) => {
    const offset = 2 * PIECE + 4096 + 9;
    const bytes = fileWithLineStarts([offset]);
    const { dir, file, ctx } = await fileOf(bytes);
    await requireDirect(t, dir);
    await refuseDirectWrites("EIO", 2);
    await expect(ctx.truncateAndRotate(offset)).rejects.toThrow("EIO: injected");
    expect((await readdir(dir)).sort()).toEqual(["context.jsonl", "context.jsonl.lock"]);
    expectBytes(await readFile(file), bytes);
    expect((await stat(file)).nlink).toBe(1);
    expect(directCopy.unsupported.size).toBe(0);
    await ctx.close();
  });
});

describe("prepend and restoreRotation", () => {
  it("prepend: head and content in the new file, including a head longer than a piece, on both paths", async () => {
    const content = fileWithLineStarts([PIECE / 2 + 11]);
    for (const enabled of [true, false]) {
      directCopy.enabled = enabled;
      for (const prompt of ["short prompt", "p".repeat(PIECE + 5000)]) {
        const { file, ctx } = await fileOf(content);
        await ctx.prepend([systemPromptRecord(prompt)]);
        const head = line(systemPromptRecord(prompt));
        expectBytes(await readFile(file), Buffer.concat([head, content]));
        await ctx.close();
      }
    }
  });

  it("restoreRotation copies a big rotation byte for byte (direct copy from 8 MiB, where the disk takes it) and a small one (copyFile)", async () => {
    for (const size of [8 * 1024 * 1024 + 4096 * 3 + 21, 300_000]) {
      const bytes = fileWithLineStarts([size - 5000]);
      const { dir, file, ctx } = await fileOf(bytes);
      const direct = size >= 8 * 1024 * 1024 && (await directSupported(dir)) ? 1 : 0;
      const cleared = await ctx.truncateAndRotate(0);
      await ctx.append([messageRecord(userMessage("after clear"))]);
      const replaced = await readFile(file);
      const before = directCopy.direct;
      const restore = await ctx.restoreRotation(cleared.n);
      expect(directCopy.direct - before).toBe(direct);
      expectBytes(await readFile(file), bytes);
      expectBytes(await readFile(restore.savedAs!.location), replaced);
      expect(ctx.size).toBe(bytes.length);
      await ctx.close();
    }
  });
});
