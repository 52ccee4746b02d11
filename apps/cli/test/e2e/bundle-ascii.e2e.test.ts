/**
 * The built CLI's chunks are ASCII (`build/ascii-source.ts`): V8 keeps a
 * loaded chunk's source text in memory, and one character outside
 * Latin-1 in it would make the whole text a two-byte string, twice the
 * memory at the interactive prompt.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ensureBuilt, kosongBin } from "./kosong-binary.js";

ensureBuilt();

describe("the built bundle", () => {
  it("has only ASCII in every chunk", async () => {
    const dist = path.dirname(kosongBin);
    // The chunks this build loads: the entry and every chunk it imports, statically or lazily (a
    // turbo cache restore can leave an older build's chunks beside them).
    const chunks = new Set([path.basename(kosongBin)]);
    const withOther: string[] = [];
    for (const name of chunks) {
      const code = await readFile(path.join(dist, name), "utf8");
      if (/[^\x00-\x7f]/.test(code)) withOther.push(name);
      for (const [, imported] of code.matchAll(/(?:from |import\()"\.\/([\w.-]+\.js)"/g)) chunks.add(imported!);
    }
    expect(chunks.size).toBeGreaterThan(5);
    expect(withOther).toEqual([]);
  });
});
