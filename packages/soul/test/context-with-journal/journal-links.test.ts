/**
 * The file journal's own folder tampered with: its `blobs/` folder or its
 * `journal.jsonl` replaced by a symlink to a folder or file outside the
 * session. The journal refuses to use them (a clear error) and writes
 * nothing through them.
 */
import { readdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "@kosong/test-support";
import { journaledSession } from "./helpers/workspace.js";

describe("the file journal's folder is not reached through links", () => {
  it("a symlink in place of blobs/ is refused: no blob lands outside the session folder", async () => {
    const { root, session, journal, context, open } = await journaledSession();
    await writeFile(path.join(root, "a.txt"), "first\n");
    await context.checkpoint();
    const declared = await journal.declareWrite(["a.txt"]);
    await writeFile(path.join(root, "a.txt"), "second\n");
    await declared.done();
    await context.close();
    await journal.close();

    const outside = await tempDir();
    const blobs = path.join(session, "files", "blobs");
    await rename(blobs, path.join(session, "files", "old-blobs"));
    await symlink(outside, blobs);
    const again = await open();
    await again.context.checkpoint();
    await writeFile(path.join(root, "b.txt"), "content only the workspace should hold\n");
    await expect(again.journal.declareWrite(["b.txt"])).rejects.toThrow(/blobs.*refused/);
    expect(await readdir(outside)).toEqual([]);
    await again.context.close();
    await again.journal.close();
  });

  it("a symlink in place of journal.jsonl is refused, its target untouched", async () => {
    const { root, session, journal, context, open } = await journaledSession();
    await writeFile(path.join(root, "a.txt"), "first\n");
    await context.checkpoint();
    await (await journal.declareWrite(["a.txt"])).done();
    await context.close();
    await journal.close();

    const victim = path.join(await tempDir(), "victim.txt");
    await writeFile(victim, "the victim's content, with a torn last line");
    const file = path.join(session, "files", "journal.jsonl");
    await rename(file, `${file}.old`);
    await symlink(victim, file);
    await expect(open()).rejects.toThrow(/journal.jsonl is a symlink: refused/);
    expect(await readFile(victim, "utf8")).toBe("the victim's content, with a torn last line");
  });
});
