/**
 * The built CLI's chunks are ASCII (`build/ascii-source.ts`): V8 keeps a
 * loaded chunk's source text in memory, and one character outside
 * Latin-1 in it would make the whole text a two-byte string, twice the
 * memory at the interactive prompt.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ensureBuilt, kosongBin } from "./kosong-binary.js";

ensureBuilt();

describe("the built bundle", () => {
  it("has only ASCII in every chunk", async () => {
    const dist = path.dirname(kosongBin);
    const chunks = (await readdir(dist)).filter((name) => name.endsWith(".js"));
    expect(chunks.length).toBeGreaterThan(5);
    const withOther: string[] = [];
    for (const name of chunks) if (/[^\x00-\x7f]/.test(await readFile(path.join(dist, name), "utf8"))) withOther.push(name);
    expect(withOther).toEqual([]);
  });
});
