/**
 * The journal's line reader on a real file: lines split across chunk
 * boundaries and a line longer than a chunk come back whole with their byte
 * offsets, blank lines too, and a torn last line is reported by where it
 * starts, not returned.
 */
import { open, writeFile } from "node:fs/promises";
import path from "node:path";
import { tempDir } from "@kosong/test-support";
import { describe, expect, it } from "vitest";
import { readJournalLines, type JournalLine } from "../src/journal-lines.js";

async function linesOf(text: string): Promise<{ lines: JournalLine[]; torn: number | null }> {
  const file = path.join(await tempDir(), "journal.jsonl");
  await writeFile(file, text);
  const handle = await open(file, "r");
  try {
    const lines: JournalLine[] = [];
    const torn = await readJournalLines(handle, (line) => void lines.push(line));
    return { lines, torn };
  } finally {
    await handle.close();
  }
}

describe("readJournalLines", () => {
  it("returns every complete line with its byte offset across chunks (1 MiB each), a line longer than a chunk included", async () => {
    const short = Array.from({ length: 60_000 }, (_, i) => JSON.stringify({ t: "cp", id: i, b: 0, note: "é" }));
    const long = JSON.stringify({ t: "unscanned", command: "x".repeat(3 * 1024 * 1024), why: "long" });
    const all = [...short.slice(0, 30_000), "", long, ...short.slice(30_000)];
    const { lines, torn } = await linesOf(`${all.join("\n")}\n`);
    expect(torn).toBeNull();
    expect(lines.map((l) => l.text)).toEqual(all);
    let offset = 0;
    for (const [i, line] of lines.entries()) {
      expect(line.offset).toBe(offset);
      offset += Buffer.byteLength(all[i]!) + 1;
    }
  });

  it("reports a torn last line by its offset and does not return it; an empty file has none", async () => {
    const { lines, torn } = await linesOf('{"t":"cp","id":0,"b":0}\n{"t":"cp","id":1,"b":0}\n{"t":"cp","id":2');
    expect(lines.map((l) => l.text)).toEqual(['{"t":"cp","id":0,"b":0}', '{"t":"cp","id":1,"b":0}']);
    expect(torn).toBe(48);
    expect(await linesOf("")).toEqual({ lines: [], torn: null });
  });
});
