/**
 * The file journal on real files: the agent's declared writes (write, edit,
 * create, delete, chmod, binary content, symlinks) are undone by a revert
 * to a checkpoint, the revert is undone by restoring its rotation, and files
 * changed outside the agent are left alone and reported.
 */
import { chmod, mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { FileJournal } from "@kosong/workspace";
import { describe, expect, it } from "vitest";
import { journaledSession, snapshot } from "./helpers/workspace.js";

/** What a tool does: declares the write, makes it, says it is done. */
async function agentWrites(journal: FileJournal, paths: string[], change: () => Promise<void>): Promise<void> {
  const declared = await journal.declareWrite(paths);
  try {
    await change();
  } finally {
    await declared.done();
  }
}

describe("the file journal", () => {
  it("restores exactly the state at a checkpoint, and restoring the rotation brings the later state back", async () => {
    const { root, journal, context } = await journaledSession();
    const at = (name: string) => path.join(root, name);
    await writeFile(at("keep.txt"), "untouched\n");
    await writeFile(at("edit.txt"), "one\ntwo\n");
    await writeFile(at("gone.txt"), "delete me\n");
    await writeFile(at("script.sh"), "#!/bin/sh\n", { mode: 0o644 });
    await context.checkpoint();
    const atZero = await snapshot(root);

    await agentWrites(journal, ["edit.txt"], () => writeFile(at("edit.txt"), "one\nTWO\n"));
    await agentWrites(journal, ["new/dir/created.bin"], async () => {
      await mkdir(at("new/dir"), { recursive: true });
      await writeFile(at("new/dir/created.bin"), Buffer.from([0, 255, 1, 254, 0, 0]));
    });
    await agentWrites(journal, ["gone.txt"], () => rm(at("gone.txt")));
    await agentWrites(journal, ["script.sh"], () => chmod(at("script.sh"), 0o755));
    await agentWrites(journal, ["empty.txt"], () => writeFile(at("empty.txt"), ""));
    await context.checkpoint();
    const atOne = await snapshot(root);

    await agentWrites(journal, ["edit.txt"], () => writeFile(at("edit.txt"), "rewritten\n"));
    await agentWrites(journal, ["link"], () => symlink("/etc/passwd", at("link")));
    await agentWrites(journal, ["empty.txt"], () => rm(at("empty.txt")));
    const atEnd = await snapshot(root);

    const toOne = await context.revertTo(1);
    expect(toOne.files).toEqual({ restored: ["edit.txt", "empty.txt", "link"], skipped: [], conflicts: [] });
    expect(await snapshot(root)).toEqual(atOne);

    const undo = await context.restoreRotation(toOne.rotation.n);
    expect(undo.files?.restored.sort()).toEqual(["edit.txt", "empty.txt", "link"]);
    expect(await snapshot(root)).toEqual(atEnd);

    const toZero = await context.revertTo(0);
    expect(toZero.files?.conflicts).toEqual([]);
    expect(await snapshot(root)).toEqual(atZero);
    expect(await readFile(at("keep.txt"), "utf8")).toBe("untouched\n");

    // Undo the second revert too: back to the end state, through the other branch.
    await context.restoreRotation(toZero.rotation.n);
    expect(await snapshot(root)).toEqual(atEnd);
  });

  it("leaves a file changed outside the agent alone and reports it, unless forced", async () => {
    const { root, journal, context } = await journaledSession();
    const file = path.join(root, "notes.md");
    await writeFile(file, "v1\n");
    await context.checkpoint();
    await agentWrites(journal, ["notes.md"], () => writeFile(file, "v2 by the agent\n"));
    await agentWrites(journal, ["other.md"], () => writeFile(path.join(root, "other.md"), "agent\n"));
    await writeFile(file, "v3 by the user, longer\n");

    expect(await journal.preview({ checkpoint: 0 })).toEqual({ restored: ["other.md"], skipped: [], conflicts: ["notes.md"] });
    const revert = await context.revertTo(0);
    expect(revert.files).toEqual({ restored: ["other.md"], skipped: [], conflicts: ["notes.md"] });
    expect(await readFile(file, "utf8")).toBe("v3 by the user, longer\n");

    await context.checkpoint();
    await context.restoreRotation(revert.rotation.n);
    const again = await context.revertTo(0, { force: true });
    expect(again.files?.restored).toContain("notes.md");
    expect(await readFile(file, "utf8")).toBe("v1\n");
  });

  it("stores a content once however many checkpoints share it, and skips files over the size cap", async () => {
    const { root, session, journal, context } = await journaledSession({ maxFileBytes: 1000 });
    const { readdir } = await import("node:fs/promises");
    await writeFile(path.join(root, "a.txt"), "same\n");
    await writeFile(path.join(root, "b.txt"), "same\n");
    await writeFile(path.join(root, "big.txt"), "x".repeat(5000));
    await context.checkpoint();
    await agentWrites(journal, ["a.txt", "b.txt", "big.txt"], async () => {
      await writeFile(path.join(root, "a.txt"), "A\n");
      await writeFile(path.join(root, "b.txt"), "B\n");
      await writeFile(path.join(root, "big.txt"), "y");
    });
    expect(await readdir(path.join(session, "files", "blobs"))).toHaveLength(1);
    const revert = await context.revertTo(0);
    expect(revert.files?.restored).toEqual(["a.txt", "b.txt"]);
    expect(revert.files?.skipped).toEqual([{ path: "big.txt", reason: expect.stringMatching(/over the journal's size cap/) }]);
    expect(await readFile(path.join(root, "big.txt"), "utf8")).toBe("y");
  });

  it("never writes through a link out of the workspace, nor journals a path outside it", async () => {
    const { root, journal, context } = await journaledSession();
    const outside = await (await import("@kosong/test-support")).tempDir();
    await writeFile(path.join(outside, "secret"), "outside\n");
    await context.checkpoint();
    const declared = await journal.declareWrite([path.join(outside, "secret"), "../x"]);
    expect(declared.notJournaled.map((n) => n.path)).toEqual([path.join(outside, "secret"), "../x"]);
    await declared.done();
    // The agent's file is replaced by a link to outside: the restore replaces the link itself.
    await agentWrites(journal, ["f.txt"], () => writeFile(path.join(root, "f.txt"), "mine\n"));
    await context.checkpoint();
    await agentWrites(journal, ["f.txt"], async () => {
      await rm(path.join(root, "f.txt"));
      await symlink(path.join(outside, "secret"), path.join(root, "f.txt"));
    });
    await context.revertTo(1);
    expect(await readFile(path.join(root, "f.txt"), "utf8")).toBe("mine\n");
    expect(await readFile(path.join(outside, "secret"), "utf8")).toBe("outside\n");
  });
});

describe("a declared write cut by a crash", () => {
  /** A session whose process stopped right after declaring a write of f.txt (the crash comes before the write itself). */
  async function declaredThenStopped() {
    const { root, session, journal, context, open } = await journaledSession();
    const file = path.join(root, "f.txt");
    await writeFile(file, "at checkpoint 0\n");
    await context.checkpoint();
    await journal.declareWrite([file]);
    await context.close();
    await journal.close();
    return { session, file, open, blobs: path.join(session, "files", "blobs") };
  }

  it("drops, on the next open, the journal's last records whose blob never became durable, so the file is journaled again", async () => {
    const { session, file, open, blobs } = await declaredThenStopped();
    // The records were durable, the blob's name was not.
    for (const blob of await readdir(blobs)) await rm(path.join(blobs, blob));

    const reopened = await open();
    expect(await readFile(path.join(session, "files", "journal.jsonl"), "utf8")).not.toContain('"pri"');
    await agentWrites(reopened.journal, [file], () => writeFile(file, "later\n"));
    const reverted = await reopened.context.revertTo(0);
    expect(reverted.files).toMatchObject({ restored: ["f.txt"], skipped: [], conflicts: [] });
    expect(await readFile(file, "utf8")).toBe("at checkpoint 0\n");
  });

  it("drops a last record whose blob has its name but not its content, and writes that blob again", async () => {
    const { session, file, open, blobs } = await declaredThenStopped();
    // The blob's rename and the record were durable, its content was not: the crash left its name over zeros.
    const [blob] = await readdir(blobs);
    await writeFile(path.join(blobs, blob!), Buffer.alloc("at checkpoint 0\n".length));

    const reopened = await open();
    expect(await readFile(path.join(session, "files", "journal.jsonl"), "utf8")).not.toContain('"pri"');
    // The same content is stored again: the damaged blob of the same size is not taken for it.
    await agentWrites(reopened.journal, [file], () => writeFile(file, "later\n"));
    expect(await readFile(path.join(blobs, blob!), "utf8")).toBe("at checkpoint 0\n");
    const reverted = await reopened.context.revertTo(0);
    expect(reverted.files).toMatchObject({ restored: ["f.txt"], skipped: [], conflicts: [] });
    expect(await readFile(file, "utf8")).toBe("at checkpoint 0\n");
  });
});
