import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { serializeMessage, userMessage } from "@kosong/core";
import { JsonlLinearStorage, StorageAlreadyModifiedError } from "@kosong/context";
import { readContextFile, scanContextFile } from "@kosong/context/records";
import { tempDir } from "@kosong/test-support";

const ok = (text: string) => serializeMessage(userMessage(text));

async function fileWith(content: string | Buffer): Promise<string> {
  const file = path.join(await tempDir(), "context.jsonl");
  await writeFile(file, content);
  return file;
}

describe("damaged files restore", () => {
  it("skips and reports every kind of damage with its line number, keeping every valid line", async () => {
    const lines = [
      ok("one"),
      "",
      "  \t",
      "not json",
      "[1,2]",
      "42",
      '{"content":"no role"}',
      '{"role":"user","content":[{"type":"hologram"}]}',
      '{"role":"user","content":5}',
      '{"role":"_usage","token_count":-4}',
      '{"role":"_checkpoint","id":"x"}',
      '{"role":"_system_prompt"}',
      ok("two"),
      '{"role":"_usage","token_count":12}',
      '{"role":"user","content":"tor',
    ];
    const file = await fileWith(lines.join("\n"));
    const storage = new JsonlLinearStorage(file);
    const report = await storage.restore();
    expect(storage.messages.map((m) => m.content[0])).toEqual([
      { type: "text", text: "one" },
      { type: "text", text: "two" },
    ]);
    expect(storage.tokenCount).toBe(12);
    expect(report.skipped.map((s) => [s.line, s.kind])).toEqual([
      [2, "blank"],
      [3, "blank"],
      [4, "invalid-json"],
      [5, "not-object"],
      [6, "not-object"],
      [7, "no-role"],
      [8, "invalid-message"],
      [9, "invalid-message"],
      [10, "invalid-record"],
      [11, "invalid-record"],
      [12, "invalid-record"],
      [15, "torn"],
    ]);
    expect(report.skipped[6]!.reason).toMatch(/content\[0\]\.type/);
    expect(report).toMatchObject({ lines: 15, records: 3, endsWithNewline: false });
    expect(storage.restoreReport).toBe(report);
    const offsets = report.skipped.map((s) => s.offset);
    const text = Buffer.from(lines.join("\n"));
    for (const s of report.skipped) expect(text.subarray(s.offset, s.offset + s.length).toString()).toBe(lines[s.line - 1]);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    await storage.close();
  });

  it("skips a line with invalid UTF-8 and keeps its neighbours", async () => {
    const bad = Buffer.concat([Buffer.from('{"role":"user","content":"a'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const file = await fileWith(Buffer.concat([Buffer.from(`${ok("before")}\n`), bad, Buffer.from(`\n${ok("after")}\n`)]));
    const state = await readContextFile(file);
    expect(state.messages).toHaveLength(2);
    expect(state.report.skipped).toMatchObject([{ line: 2, kind: "invalid-utf8" }]);
  });

  it("reads CRLF line endings and a byte-order mark", async () => {
    const file = await fileWith(`\ufeff${ok("a")}\r\n${ok("b")}\r\n`);
    const state = await readContextFile(file);
    expect(state.messages).toHaveLength(2);
    expect(state.report.skipped).toEqual([]);
  });

  it("accepts a complete last line without a newline", async () => {
    const file = await fileWith(`${ok("a")}\n${ok("b")}`);
    const state = await readContextFile(file);
    expect(state.messages).toHaveLength(2);
    expect(state.report).toMatchObject({ endsWithNewline: false, skipped: [] });
  });

  it("never modifies the file while restoring", async () => {
    const content = `${ok("a")}\n{"role":\n\n${ok("b")}\n{"role":"us`;
    const file = await fileWith(content);
    const storage = new JsonlLinearStorage(file);
    await storage.restore();
    await storage.close();
    expect(await readFile(file, "utf8")).toBe(content);
  });

  it("reads lines longer than the read buffer and lines across buffer boundaries", async () => {
    const long = ok("x".repeat(5000));
    const lines = [ok("a"), long, ok("ü".repeat(40)), "garbage", long];
    const file = await fileWith(`${lines.join("\n")}\n`);
    for (const chunkSize of [16, 17, 64, 1000, 4096]) {
      const seen: number[] = [];
      const report = await scanContextFile(file, (s) => seen.push(s.line), { chunkSize });
      expect(seen).toEqual([1, 2, 3, 5]);
      expect(report.skipped).toMatchObject([{ line: 4, kind: "invalid-json" }]);
    }
  });

  it("a missing file restores to empty", async () => {
    const storage = new JsonlLinearStorage(path.join(await tempDir(), "nope.jsonl"));
    const report = await storage.restore();
    expect(report).toMatchObject({ exists: false, lines: 0, skipped: [] });
    expect(storage.messages).toEqual([]);
    await storage.close();
    expect(existsSync(storage.path)).toBe(false);
  });
});

describe("restore preconditions", () => {
  it("restoring a storage that was appended to is an error, as in kosong", async () => {
    const file = await fileWith(`${ok("a")}\n`);
    const storage = new JsonlLinearStorage(file);
    await storage.appendMessage(userMessage("b"));
    await expect(storage.restore()).rejects.toBeInstanceOf(StorageAlreadyModifiedError);
    await storage.close();
  });

  it("restoring twice is an error", async () => {
    const file = await fileWith(`${ok("a")}\n`);
    const storage = new JsonlLinearStorage(file);
    await storage.restore();
    await expect(storage.restore()).rejects.toThrow("The storage is already modified");
    expect(storage.messages).toHaveLength(1);
    await storage.close();
  });
});
