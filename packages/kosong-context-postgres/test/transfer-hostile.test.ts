/**
 * Export and import under a hostile folder, and hostile session ids, on a
 * real PostgreSQL: an export replaces the rotation files an earlier export
 * left (a later import does not attach them), writes through no planted
 * symlink, an import of a missing file fails clearly, and an id that is not
 * well-formed Unicode (a lone UTF-16 surrogate) is refused everywhere.
 */
import { mkdir, mkdtemp, readdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { userMessage } from "@kosong/core";
import { messageRecord } from "@kosong/context/records";
import { rotationFile } from "@kosong/context-postgres";
import { describe, expect, it } from "vitest";
import { sessionId, testStore } from "./helpers/store.js";

const store = await testStore();

/** A session of `rotations` rotations (a truncation each) and one current message `last`. */
async function session(rotations: number, last: string): Promise<string> {
  const id = sessionId();
  const log = await store.openLog(id);
  for (let i = 0; i < rotations; i++) {
    await log.append([messageRecord(userMessage(`rotation ${i} of ${last}`))]);
    await log.truncateAndRotate(0, []);
  }
  await log.append([messageRecord(userMessage(last))]);
  await log.close();
  return id;
}

async function folder(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), "kosong-pg-transfer-"));
}

describe("export and import under a hostile folder", () => {
  it("an export removes the rotation files of an earlier one, and an import attaches only the rotations its export named", async () => {
    const dir = await folder();
    const file = path.join(dir, "context.jsonl");
    const first = await exported(await session(2, "first secret"), file);
    expect(first.rotations.map((r) => r.n)).toEqual([1, 2]);
    const second = await exported(await session(0, "second"), file);
    expect(second.rotations).toEqual([]);
    expect((await readdir(dir)).filter((name) => name.startsWith("context_"))).toEqual([]);

    // A rotation planted after the export is not the export's: the import ignores it.
    await writeFile(rotationFile(file, 7), `${JSON.stringify({ role: "user", content: "planted" })}\n`);
    const imported = sessionId();
    await store.importSession(imported, file);
    const again = path.join(await folder(), "context.jsonl");
    const back = await store.exportSession(imported, again);
    expect(back.rotations).toEqual([]);
    expect(await readFile(again, "utf8")).toContain("second");
    expect(await readFile(again, "utf8")).not.toContain("secret");
  });

  it("an export writes through no symlink planted in its folder", async () => {
    const dir = await folder();
    const outside = path.join(await folder(), "victim.txt");
    await writeFile(outside, "the victim's content\n");
    const file = path.join(dir, "context.jsonl");
    await symlink(outside, file);
    await symlink(outside, rotationFile(file, 1));
    const result = await exported(await session(1, "over the links"), file);
    expect(result.rotations.map((r) => r.n)).toEqual([1]);
    expect(await readFile(outside, "utf8")).toBe("the victim's content\n");
    expect(await readFile(file, "utf8")).toContain("over the links");
    expect(await readFile(rotationFile(file, 1), "utf8")).toContain("rotation 0 of over the links");
    await expect(readlink(file)).rejects.toMatchObject({ code: "EINVAL" });
  });

  it("an import of a missing file fails clearly and creates no session", async () => {
    const dir = await folder();
    const id = sessionId();
    await expect(store.importSession(id, path.join(dir, "missing.jsonl"))).rejects.toThrow(/missing\.jsonl/);
    // The id is still free: an import of a real file into it succeeds.
    const file = path.join(dir, "context.jsonl");
    await exported(await session(0, "real"), file);
    await expect(store.importSession(id, file)).resolves.toMatchObject({ skipped: [] });
  });
});

describe("session ids that are not well-formed Unicode", () => {
  it("are refused by every entry point, and do not share a row", async () => {
    const lone = `${sessionId()}\ud800`;
    const otherLone = lone.replace("\ud800", "\udfff");
    await expect(store.openLog(lone)).rejects.toThrow(TypeError);
    await expect(store.openLog(otherLone)).rejects.toThrow(TypeError);
    expect(() => store.linearStorage(lone)).toThrow(TypeError);
    expect(() => store.exportSession(lone, path.join(os.tmpdir(), "never.jsonl"))).toThrow(TypeError);
    const dir = await folder();
    const file = path.join(dir, "context.jsonl");
    await exported(await session(0, "to import"), file);
    await expect(store.importSession(lone, file)).rejects.toThrow(TypeError);
    // A well-formed id beside them opens, again and again.
    const fine = `${sessionId()}\ud83d\ude00`;
    for (let i = 0; i < 2; i++) await (await store.openLog(fine)).close();
  });
});

async function exported(id: string, file: string) {
  await mkdir(path.dirname(file), { recursive: true });
  return store.exportSession(id, file);
}
