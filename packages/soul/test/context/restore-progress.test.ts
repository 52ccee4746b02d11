/**
 * A long conversation's restore tells the host how far it got: the bytes of
 * the context file read so far and its size, growing chunk by chunk to the
 * whole file; a log that cannot tell (memory) never calls it.
 */
import { stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { MemoryContextLog } from "@kosong/context";
import { encodeRecord, messageRecord } from "@kosong/context/records";
import { tempDir } from "@kosong/test-support";
import { describe, expect, it } from "vitest";
import { Context } from "@kosong/soul";

describe("restore progress", () => {
  it("reports bytes read and the file's size as the context file is read, ending at the whole file", async () => {
    const file = path.join(await tempDir(), "context.jsonl");
    const text = "x".repeat(1000);
    const lines = Array.from({ length: 3000 }, (_, i) => encodeRecord(messageRecord({ role: i % 2 === 0 ? "user" : "assistant", content: [{ type: "text", text: `${i} ${text}` }] })));
    await writeFile(file, `${lines.join("\n")}\n`);
    const size = (await stat(file)).size;
    const seen: [number, number][] = [];
    const context = new Context(file, { onRestoreProgress: (done, total) => seen.push([done, total]) });
    await context.restore();
    expect(context.history).toHaveLength(3000);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.at(-1)).toEqual([size, size]);
    expect(seen.every(([, total]) => total === size)).toBe(true);
    expect(seen.map(([done]) => done)).toEqual([...seen.map(([done]) => done)].sort((a, b) => a - b));
    await context.close();
  });

  it("is never called by a log that cannot tell", async () => {
    const log = new MemoryContextLog();
    await log.append([messageRecord({ role: "user", content: [{ type: "text", text: "hi" }] })]);
    const seen: number[] = [];
    const context = new Context(log, { onRestoreProgress: (done) => seen.push(done) });
    await context.restore();
    expect(context.history).toHaveLength(1);
    expect(seen).toEqual([]);
    await context.close();
  });
});
