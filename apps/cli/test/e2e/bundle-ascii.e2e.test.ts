/**
 * The built CLI's chunks are ASCII (`build/ascii-source.ts`): V8 keeps a
 * loaded chunk's source text in memory, and one character outside
 * Latin-1 in it would make the whole text a two-byte string, twice the
 * memory at the interactive prompt.
 */
import { describe, expect, it } from "vitest";
import { ensureBuilt, loadedChunks } from "./kosong-binary.js";

ensureBuilt();

describe("the built bundle", () => {
  it("has only ASCII in every chunk", async () => {
    const chunks = await loadedChunks();
    const withOther = [...chunks].filter(([, code]) => /[^\x00-\x7f]/.test(code)).map(([name]) => name);
    expect(chunks.size).toBeGreaterThan(5);
    expect(withOther).toEqual([]);
  });
});
