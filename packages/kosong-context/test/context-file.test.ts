import { link, readFile, readdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { userMessage } from "@kosong/core";
import { InvalidOffsetError, InvalidRecordError, JsonlContextFile, RotationNotFoundError, StorageClosedError, type Durability } from "@kosong/context";
import { checkpointRecord, encodeRecord, messageRecord, otherRecord, readContextFile, systemPromptRecord, usageRecord, type ContextRecord } from "@kosong/context/records";
import { tempDir } from "@kosong/test-support";

const line = (record: ContextRecord) => `${encodeRecord(record)}\n`;
const msg = (text: string) => messageRecord(userMessage(text));

async function fresh(durability: Durability = "batch"): Promise<{ dir: string; file: string; ctx: JsonlContextFile }> {
  const dir = await tempDir();
  const file = path.join(dir, "context.jsonl");
  return { dir, file, ctx: await JsonlContextFile.open(file, { durability }) };
}

describe("JsonlContextFile appends", () => {
  it("does not create the file until the first write", async () => {
    const { dir, file, ctx } = await fresh();
    expect(await readdir(dir)).toEqual(["context.jsonl.lock"]);
    expect((await readContextFile(file)).report.exists).toBe(false);
    await ctx.append([msg("hi")]);
    expect(await readFile(file, "utf8")).toBe(line(msg("hi")));
    await ctx.close();
    expect(await readdir(dir)).toEqual(["context.jsonl"]);
  });

  it("acknowledges appends with their byte offsets, in order", async () => {
    const { file, ctx } = await fresh();
    const a = ctx.append([systemPromptRecord("p")]);
    const b = ctx.append([checkpointRecord(0), msg("é")]);
    const c = ctx.append([usageRecord(5)]);
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    const bytes = await readFile(file);
    expect(ra.position).toBe(0);
    expect(rb.position).toBe(ra.end);
    expect(rc.position).toBe(rb.end);
    expect(rc.end).toBe(bytes.length);
    expect(bytes.subarray(rb.position, rb.end).toString()).toBe(line(checkpointRecord(0)) + line(msg("é")));
    expect(ctx.size).toBe(bytes.length);
    await ctx.close();
  });

  it('"batch" commits one tick of appends as one write and one fsync', async () => {
    const { file, ctx } = await fresh("batch");
    await Promise.all(Array.from({ length: 100 }, (_, i) => ctx.append([msg(`m${i}`)])));
    expect(ctx.stats).toMatchObject({ writes: 1, syncs: 1 });
    await ctx.append([usageRecord(1)]);
    await ctx.append([usageRecord(2)]);
    expect(ctx.stats).toMatchObject({ writes: 3, syncs: 3 });
    expect((await readContextFile(file)).messages).toHaveLength(100);
    await ctx.close();
  });

  it('"always" writes and fsyncs each append call on its own', async () => {
    const { ctx } = await fresh("always");
    await Promise.all(Array.from({ length: 20 }, (_, i) => ctx.append([msg(`m${i}`), usageRecord(i)])));
    expect(ctx.stats).toMatchObject({ writes: 20, syncs: 20 });
    await ctx.close();
  });

  it('"none" groups writes like "batch" but never fsyncs', async () => {
    const { ctx } = await fresh("none");
    await Promise.all(Array.from({ length: 20 }, (_, i) => ctx.append([msg(`m${i}`)])));
    await ctx.append([msg("again")]);
    expect(ctx.stats).toMatchObject({ writes: 2, syncs: 0 });
    await ctx.close();
  });

  it("rejects an invalid record without writing anything of that call", async () => {
    const { file, ctx } = await fresh();
    await ctx.append([msg("kept")]);
    await expect(ctx.append([msg("dropped"), usageRecord(-3)])).rejects.toBeInstanceOf(InvalidRecordError);
    await ctx.append([msg("after")]);
    expect(await readFile(file, "utf8")).toBe(line(msg("kept")) + line(msg("after")));
    await ctx.close();
  });

  it("takes back the bytes of earlier records of a call when a later one cannot be written (extras JSON cannot hold)", async () => {
    const { file, ctx } = await fresh();
    await ctx.append([msg("kept")]);
    const big = msg("x".repeat(700_000)); // a large record first: nothing of the call may reach the file
    const call = { type: "function" as const, id: "c1", function: { name: "f", arguments: "{}" }, extras: { n: 1n as unknown as number } };
    const bad = messageRecord({ role: "assistant", content: [], tool_calls: [call] });
    await expect(ctx.append([big, checkpointRecord(0), bad])).rejects.toThrow(/BigInt/);
    await ctx.append([msg("after")]);
    expect(await readFile(file, "utf8")).toBe(line(msg("kept")) + line(msg("after")));
    await ctx.close();
  });

  it("starts a new line after a torn last line, leaving the torn bytes in place", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "context.jsonl");
    const torn = '{"role":"user","content":"ok"}\n{"role":"assistant","con';
    await writeFile(file, torn);
    const ctx = await JsonlContextFile.open(file);
    const state = await ctx.read();
    expect(state.report.endsWithNewline).toBe(false);
    expect(state.report.skipped).toMatchObject([{ line: 2, kind: "torn" }]);
    const receipt = await ctx.append([msg("next")]);
    expect(receipt.position).toBe(Buffer.byteLength(torn) + 1);
    expect(await readFile(file, "utf8")).toBe(`${torn}\n${line(msg("next"))}`);
    const after = await ctx.read();
    expect(after.messages.map((m) => m.content)).toEqual([[{ type: "text", text: "ok" }], [{ type: "text", text: "next" }]]);
    expect(after.report.skipped).toMatchObject([{ line: 2, kind: "invalid-json" }]);
    await ctx.close();
  });

  it("keeps other internal records in the file and ignores them in the state", async () => {
    const { file, ctx } = await fresh();
    await ctx.append([otherRecord({ role: "_meta", tag: "x" }), msg("a")]);
    const state = await ctx.read();
    expect(state.otherRecords).toBe(1);
    expect(state.messages).toHaveLength(1);
    expect(await readFile(file, "utf8")).toContain('{"role": "_meta", "tag": "x"}\n');
    await ctx.close();
  });

  it("rejects everything after close with StorageClosedError, and close is idempotent", async () => {
    const { ctx } = await fresh();
    const pending = ctx.append([msg("a")]);
    await ctx.close();
    await expect(pending).resolves.toMatchObject({ position: 0 });
    await expect(ctx.append([msg("b")])).rejects.toBeInstanceOf(StorageClosedError);
    await expect(ctx.truncateAndRotate(0)).rejects.toBeInstanceOf(StorageClosedError);
    await expect(ctx.read()).rejects.toBeInstanceOf(StorageClosedError);
    await ctx.close();
  });
});

describe("truncate-with-rotation", () => {
  async function seeded(): Promise<{ dir: string; file: string; ctx: JsonlContextFile; marks: number[] }> {
    const { dir, file, ctx } = await fresh();
    const marks: number[] = [];
    for (let id = 0; id < 3; id += 1) {
      marks.push((await ctx.append([checkpointRecord(id)])).position);
      await ctx.append([msg(`turn ${id}`), usageRecord(10 * (id + 1))]);
    }
    return { dir, file, ctx, marks };
  }

  it("keeps [0, offset) as the current file and the whole old file as <stem>_1<ext>", async () => {
    const { dir, file, ctx, marks } = await seeded();
    const old = await readFile(file);
    const rotation = await ctx.truncateAndRotate(marks[2]!);
    expect(rotation).toEqual({ n: 1, location: path.join(dir, "context_1.jsonl"), positions: [], end: marks[2] });
    expect(await readFile(rotation.location)).toEqual(old);
    expect(await readFile(file)).toEqual(old.subarray(0, marks[2]));
    expect(ctx.size).toBe(marks[2]);
    const state = await ctx.read();
    expect(state.nextCheckpointId).toBe(2);
    expect(state.tokenCount).toBe(20);
    // The rotation is its own inode: appending to the current file leaves it alone.
    await ctx.append([msg("new branch")]);
    expect(await readFile(rotation.location)).toEqual(old);
    expect((await stat(file)).nlink).toBe(1);
    await ctx.close();
  });

  it("numbers rotations after the highest existing one, skipping taken names", async () => {
    const { dir, ctx } = await seeded();
    await writeFile(path.join(dir, "context_4.jsonl"), "");
    await writeFile(path.join(dir, "context_x.jsonl"), "");
    expect((await ctx.truncateAndRotate(0)).n).toBe(5);
    await ctx.append([msg("x")]);
    expect((await ctx.truncateAndRotate(0)).n).toBe(6);
    expect((await ctx.listRotations()).map((r) => r.n)).toEqual([4, 5, 6]);
    await ctx.close();
  });

  it("ignores names that are not rotations it could number after: leading zeros, numbers too large to count on", async () => {
    const { dir, ctx } = await seeded();
    await writeFile(path.join(dir, "context_07.jsonl"), "");
    await writeFile(path.join(dir, "context_99999999999999999999.jsonl"), "");
    await writeFile(path.join(dir, "context_9007199254740991.jsonl"), "");
    expect(await ctx.listRotations()).toEqual([]);
    // Before, the huge number made the next number unreachable (n + 1 === n) and the search never ended.
    expect((await ctx.truncateAndRotate(0)).n).toBe(1);
    expect((await ctx.listRotations()).map((r) => r.location)).toEqual([path.join(dir, "context_1.jsonl")]);
    await ctx.close();
  });

  it("rejects an offset that is not the start of a line", async () => {
    const { ctx, marks } = await seeded();
    await expect(ctx.truncateAndRotate(marks[1]! + 3)).rejects.toBeInstanceOf(InvalidOffsetError);
    await expect(ctx.truncateAndRotate(ctx.size + 1)).rejects.toBeInstanceOf(InvalidOffsetError);
    await expect(ctx.truncateAndRotate(-1)).rejects.toBeInstanceOf(InvalidOffsetError);
    expect(await ctx.listRotations()).toEqual([]);
    await ctx.close();
  });

  it("copies a prefix of several MiB byte for byte and checks the line start in its last chunk", async () => {
    const { dir, file, ctx } = await fresh();
    const marks: number[] = [];
    // ~3 MB: the copy takes several chunks.
    for (let i = 0; i < 30; i += 1) {
      marks.push((await ctx.append([checkpointRecord(i)])).position);
      await ctx.append([msg(`${i} ${"abc ".repeat(25_000)}`)]);
    }
    const old = await readFile(file);
    await expect(ctx.truncateAndRotate(marks[25]! - 1)).rejects.toBeInstanceOf(InvalidOffsetError);
    await expect(ctx.truncateAndRotate(marks[25]! + 1)).rejects.toBeInstanceOf(InvalidOffsetError);
    expect((await readdir(dir)).sort()).toEqual(["context.jsonl", "context.jsonl.lock"]);
    expect(await readFile(file)).toEqual(old);
    const rotation = await ctx.truncateAndRotate(marks[25]!);
    expect(marks[25]!).toBeGreaterThan(2 * 1024 * 1024);
    expect(await readFile(file)).toEqual(old.subarray(0, marks[25]));
    expect(await readFile(rotation.location)).toEqual(old);
    expect((await ctx.read()).messages).toHaveLength(25);
    await ctx.close();
  });

  it("orders with appends: appends before it are rotated, appends after it land in the new file", async () => {
    const { file, ctx, marks } = await seeded();
    const before = ctx.append([msg("before")]);
    const rotated = ctx.truncateAndRotate(marks[1]!);
    const after = ctx.append([msg("after")]);
    const [, rotation] = await Promise.all([before, rotated, after]);
    expect(await readFile(rotation.location, "utf8")).toContain("before");
    const current = await readFile(file, "utf8");
    expect(current).not.toContain("before");
    expect(current.endsWith(line(msg("after")))).toBe(true);
    await ctx.close();
  });

  it("rotates a file that does not exist yet as an empty one", async () => {
    const { dir, file, ctx } = await fresh();
    const rotation = await ctx.truncateAndRotate(0);
    expect(await readFile(rotation.location, "utf8")).toBe("");
    expect(await readFile(file, "utf8")).toBe("");
    expect((await readdir(dir)).sort()).toEqual(["context.jsonl", "context.jsonl.lock", "context_1.jsonl"]);
    await ctx.close();
  });
});

describe("rotations", () => {
  it("restoreRotation undoes a clear, keeping the replaced file as a new rotation", async () => {
    const { file, ctx } = await fresh();
    await ctx.append([systemPromptRecord("p"), checkpointRecord(0), msg("one"), usageRecord(7)]);
    const original = await readFile(file);
    const cleared = await ctx.truncateAndRotate(0);
    await ctx.append([msg("after clear")]);
    const replaced = await readFile(file);

    const restore = await ctx.restoreRotation(cleared.n);
    expect(restore.restored).toEqual({ n: cleared.n, location: cleared.location });
    expect(restore.savedAs?.n).toBe(2);
    expect(await readFile(file)).toEqual(original);
    expect(await readFile(restore.savedAs!.location)).toEqual(replaced);
    expect(await readFile(cleared.location)).toEqual(original);
    expect(ctx.size).toBe(original.length);
    const state = await ctx.read();
    expect(state.messages).toHaveLength(1);
    expect(state.tokenCount).toBe(7);
    await ctx.append([msg("continued")]);
    expect((await ctx.read()).messages).toHaveLength(2);
    await expect(ctx.restoreRotation(99)).rejects.toBeInstanceOf(RotationNotFoundError);
    await ctx.close();
  });
});

describe("prepend", () => {
  it("writes records before the content atomically; positions move by the new lines' bytes", async () => {
    const { file, ctx } = await fresh();
    const receipt = await ctx.append([checkpointRecord(0), msg("hi")]);
    await ctx.prepend([systemPromptRecord("late prompt")]);
    const bytes = Buffer.byteLength(line(systemPromptRecord("late prompt")));
    expect(await readFile(file, "utf8")).toBe(line(systemPromptRecord("late prompt")) + line(checkpointRecord(0)) + line(msg("hi")));
    expect(ctx.size).toBe(receipt.end + bytes);
    const state = await ctx.read();
    expect(state.systemPrompt).toBe("late prompt");
    expect(state.checkpoints[0]!.position).toBe(receipt.position + bytes);
    await ctx.append([msg("more")]);
    expect((await ctx.read()).messages).toHaveLength(2);
    await ctx.close();
  });
});

describe("recovery on open", () => {
  it("removes temp files left by an interrupted operation", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "context.jsonl");
    await writeFile(file, line(msg("a")));
    await writeFile(path.join(dir, ".context.jsonl.tmp-999999-3"), "partial");
    await writeFile(path.join(dir, "unrelated.tmp"), "keep");
    const ctx = await JsonlContextFile.open(file);
    expect((await readdir(dir)).sort()).toEqual(["context.jsonl", "context.jsonl.lock", "unrelated.tmp"]);
    await ctx.close();
  });

  it("gives the file its own inode again when a crash left it hard-linked to a rotation", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "context.jsonl");
    await writeFile(file, line(msg("a")));
    await link(file, path.join(dir, "context_1.jsonl"));
    const ctx = await JsonlContextFile.open(file);
    expect((await stat(file)).nlink).toBe(1);
    await ctx.append([msg("b")]);
    expect(await readFile(path.join(dir, "context_1.jsonl"), "utf8")).toBe(line(msg("a")));
    expect(await readFile(file, "utf8")).toBe(line(msg("a")) + line(msg("b")));
    await ctx.close();
  });
});
