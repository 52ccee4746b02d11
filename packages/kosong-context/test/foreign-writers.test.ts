/**
 * Another program writing the context file without its lock (kimi-cli, an
 * editor, a script): the writer notices and refuses with
 * `ContextFileChangedError` instead of acknowledging records that a restore
 * would not return. After each foreign change, every acknowledged record is
 * returned by a restore, or its append failed with the typed error.
 */
import { spawn } from "node:child_process";
import { appendFile, readFile, rename, stat, truncate, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ContextFileChangedError, JsonlContextFile, JsonlLinearStorage, StorageWriteError, type ContextFileChange } from "@kosong/context";
import { messageRecord, readContextFile } from "@kosong/context/records";
import { tempDir } from "@kosong/test-support";

const user = (text: string) => messageRecord({ role: "user", content: [{ type: "text", text }] });
const texts = async (file: string) => (await readContextFile(file)).messages.map((m) => (m.content[0] as { text: string }).text);

async function rejectsWithChange(promise: Promise<unknown>, change: ContextFileChange): Promise<ContextFileChangedError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(ContextFileChangedError.isInstance(error), String(error)).toBe(true);
  const changed = error as ContextFileChangedError;
  expect(changed.change).toBe(change);
  // A kind of write failure: code that handles StorageWriteError handles it too.
  expect(StorageWriteError.isInstance(changed)).toBe(true);
  expect(changed.message).toContain(changed.path);
  return changed;
}

async function opened() {
  const file = path.join(await tempDir(), "context.jsonl");
  const ctx = await JsonlContextFile.open(file);
  await ctx.append([user("acknowledged 1")]);
  return { file, ctx };
}

describe("another program writing the context file", () => {
  it("a foreign torn line between two appends: the next append is refused, not glued to it", async () => {
    const { file, ctx } = await opened();
    await appendFile(file, '{"role": "user", "content": "half a li');
    await rejectsWithChange(ctx.append([user("not acknowledged")]), "appended");
    // Every later operation is refused too: this handle's idea of the file is wrong now.
    await rejectsWithChange(ctx.append([user("later")]), "appended");
    await rejectsWithChange(ctx.read(), "appended");
    await rejectsWithChange(ctx.truncateAndRotate(0), "appended");
    await ctx.close();
    expect(await texts(file)).toEqual(["acknowledged 1"]);
    // Reopening goes on from what the file holds, on a fresh line.
    const again = await JsonlContextFile.open(file);
    await again.append([user("acknowledged 2")]);
    await again.close();
    expect(await texts(file)).toEqual(["acknowledged 1", "acknowledged 2"]);
  });

  it("a foreign complete line is refused the same way (the writer's state no longer matches the file)", async () => {
    const { file, ctx } = await opened();
    await appendFile(file, '{"role": "user", "content": "from kimi-cli"}\n');
    await rejectsWithChange(ctx.append([user("not acknowledged")]), "appended");
    await ctx.close();
    expect(await texts(file)).toEqual(["acknowledged 1", "from kimi-cli"]);
  });

  it("kimi-cli's revert (rename to context_1.jsonl, write a new file): appends are refused, neither file is touched", async () => {
    const { file, ctx } = await opened();
    const rotated = path.join(path.dirname(file), "context_1.jsonl");
    await rename(file, rotated);
    await writeFile(file, '{"role": "_system_prompt", "content": "kimi"}\n{"role": "_checkpoint", "id": 0}\n');
    const kimi = await readFile(file);
    const old = await readFile(rotated);
    await rejectsWithChange(ctx.append([user("not acknowledged")]), "replaced");
    await rejectsWithChange(ctx.prepend([user("not acknowledged")]), "replaced");
    await ctx.close();
    expect((await readFile(file)).equals(kimi)).toBe(true);
    expect((await readFile(rotated)).equals(old)).toBe(true);
    expect(await texts(rotated)).toEqual(["acknowledged 1"]);
  });

  it("renamed away with nothing in its place, or deleted: refused as removed", async () => {
    const { file, ctx } = await opened();
    await rename(file, `${file}.bak`);
    await rejectsWithChange(ctx.append([user("not acknowledged")]), "removed");
    await ctx.close();
    expect(await texts(`${file}.bak`)).toEqual(["acknowledged 1"]);
  });

  it("a foreign truncate: refused, the cut file is not written to", async () => {
    const { file, ctx } = await opened();
    await ctx.append([user("acknowledged 2")]);
    await truncate(file, 10);
    await rejectsWithChange(ctx.append([user("not acknowledged")]), "truncated");
    await ctx.close();
    expect((await stat(file)).size).toBe(10);
  });

  it("a file created by another program before the writer's first append is not appended to", async () => {
    const file = path.join(await tempDir(), "context.jsonl");
    const ctx = await JsonlContextFile.open(file);
    await writeFile(file, '{"role": "user", "content": "someone else\'s"}');
    await rejectsWithChange(ctx.append([user("not acknowledged")]), "created");
    await ctx.close();
    expect(await texts(file)).toEqual(["someone else's"]);
  });

  it("JsonlLinearStorage refuses the same way", async () => {
    const file = path.join(await tempDir(), "context.jsonl");
    const storage = new JsonlLinearStorage(file);
    await storage.restore();
    await storage.appendMessage({ role: "user", content: [{ type: "text", text: "acknowledged 1" }] });
    await appendFile(file, "{torn");
    await rejectsWithChange(storage.appendMessage({ role: "user", content: [{ type: "text", text: "not acknowledged" }] }), "appended");
    await storage.close();
  });

  it("a process appending torn and whole lines in a loop while the writer appends: every acknowledged record is restored", async () => {
    const file = path.join(await tempDir(), "context.jsonl");
    await writeFile(file, "");
    // The foreign writer: no lock, appends a line fragment or a whole line every few milliseconds.
    const script = `
      const fs = require("node:fs");
      const file = process.argv[1];
      let n = 0;
      const tick = () => {
        n += 1;
        fs.appendFileSync(file, n % 2 ? '{"role": "user", "content": "torn ' + n : '\\n{"role": "user", "content": "foreign ' + n + '"}\\n');
        setTimeout(tick, 1 + (n % 5));
      };
      tick();`;
    const foreign = spawn(process.execPath, ["-e", script, file], { stdio: "ignore" });
    const acknowledged: string[] = [];
    let refused = 0;
    try {
      for (let round = 0; round < 40; round += 1) {
        const ctx = await JsonlContextFile.open(file);
        for (let i = 0; i < 20; i += 1) {
          const text = `ours ${round}.${i}`;
          try {
            await ctx.append([user(text)]);
            acknowledged.push(text);
          } catch (error) {
            if (!ContextFileChangedError.isInstance(error)) throw error;
            refused += 1;
            break;
          }
        }
        await ctx.close();
      }
    } finally {
      foreign.kill("SIGKILL");
    }
    const restored = new Set(await texts(file));
    expect(acknowledged.filter((text) => !restored.has(text))).toEqual([]);
    expect(refused).toBeGreaterThan(0);
  });
});
