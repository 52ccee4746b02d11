/** The confined-fs primitives as a later caller (e.g. a file journal) uses them: what they open, create and report. */
import { mkdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { FileRegistry } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { FolderCursor, lstatInside, openForRead, openForWrite, readWhole, replaceWhole, resolveExisting, resolveInside } from "../src/tools/confined-fs.js";
import { openWorkspace, PathEscapeError } from "../src/tools/workspace.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

describe("confined-fs", () => {
  it("openForWrite creates the file and its folders, says it did, keeps what a file held until told to replace it", async () => {
    const workspace = await openWorkspace(await tempDir(), new FileRegistry());
    const created = await openForWrite(workspace, "a/b/new.txt");
    expect(created.created).toBe(true);
    expect(created.path).toBe(path.join(workspace.root, "a/b/new.txt"));
    await replaceWhole(created, "first\n");
    await created.handle.close();
    const again = await openForWrite(workspace, "a/b/new.txt");
    expect(again.created).toBe(false);
    expect(await readWhole(again)).toBe("first\n");
    await replaceWhole(again, "second\n");
    await again.handle.close();
    expect(await readFile(path.join(workspace.root, "a/b/new.txt"), "utf8")).toBe("second\n");
    await expect(openForWrite(workspace, "missing.txt", { create: false })).rejects.toMatchObject({ code: "ENOENT" });
    await expect(openForRead(workspace, "a")).rejects.toMatchObject({ code: "EISDIR" });
  });

  it("lstatInside does not follow a final link; resolveInside follows it inside and refuses it outside; names starting with .. are inside", async () => {
    const root = await tempDir();
    const outside = await tempDir();
    const workspace = await openWorkspace(root, new FileRegistry());
    await writeFile(path.join(root, "..notes"), "dots\n");
    await symlink("..notes", path.join(root, "alias"));
    await symlink(path.join(outside, "gone"), path.join(root, "away"));
    expect((await lstatInside(workspace, "alias")).stats.isSymbolicLink()).toBe(true);
    expect(await resolveInside(workspace, "alias")).toBe(path.join(root, "..notes"));
    expect(await resolveInside(workspace, "not/yet/there.txt")).toBe(path.join(root, "not/yet/there.txt"));
    await expect(resolveExisting(workspace, "not/yet/there.txt")).rejects.toMatchObject({ code: "ENOENT" });
    await expect(resolveInside(workspace, "away")).rejects.toBeInstanceOf(PathEscapeError);
    const file = await openForRead(workspace, "..notes");
    expect(await readWhole(file)).toBe("dots\n");
    await file.handle.close();
  });

  it("a FolderCursor serves a batch of walks; a folder swapped for a link meanwhile leads nowhere outside", async () => {
    const root = await tempDir();
    const outside = await tempDir();
    await mkdir(path.join(outside, "e"));
    await writeFile(path.join(outside, "e/x.txt"), "outside\n");
    const workspace = await openWorkspace(root, new FileRegistry());
    await mkdir(path.join(root, "d/e"), { recursive: true });
    await writeFile(path.join(root, "d/e/x.txt"), "inside\n");
    const cursor = new FolderCursor();
    const read = async (requested: string, through?: FolderCursor) => {
      const file = await openForRead(workspace, requested, through);
      try {
        return { path: file.path, text: await readWhole(file) };
      } finally {
        await file.handle.close();
      }
    };
    try {
      expect(await read("d/e/x.txt", cursor)).toEqual({ path: path.join(root, "d/e/x.txt"), text: "inside\n" });
      await rename(path.join(root, "d"), path.join(root, "d-old"));
      await symlink(outside, path.join(root, "d"));
      // The cursor's folders are the ones it checked (now d-old): still inside.
      expect(await read("d/e/x.txt", cursor)).toEqual({ path: path.join(root, "d-old/e/x.txt"), text: "inside\n" });
      await expect(read("d/e/x.txt")).rejects.toBeInstanceOf(PathEscapeError);
      await expect(read("x.txt", cursor)).rejects.toMatchObject({ code: "ENOENT" });
      await expect(read("d/e/x.txt", cursor)).rejects.toBeInstanceOf(PathEscapeError);
    } finally {
      await cursor.close();
    }
  });
});
