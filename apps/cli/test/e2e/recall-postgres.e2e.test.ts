/**
 * Recall with `--store` (conversations in PostgreSQL), through the built
 * binary: a compaction of a session kept in PostgreSQL leaves its pointer
 * notice there, and the model's `Recall` brings back the file's last view
 * and the dropped range from the rotation the store kept, in later runs.
 */
import { mkdir, readdir } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { describe, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { recallAfterCompaction } from "./recall-after-compaction.js";
import { useTestStore } from "./test-store.js";

const tempDir = useTempDirs();
const pg = useTestStore();

async function messagesOf(id: string): Promise<Message[]> {
  const log = await pg.store.openLog(id);
  try {
    return (await log.read()).messages;
  } finally {
    await log.close();
  }
}

describe("Recall with --store", { timeout: 90_000 }, () => {
  it("brings back a file's last view and a dropped range after a compaction kept in PostgreSQL", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    let id: string | undefined;
    await recallAfterCompaction(home, cwd, ["--store", pg.url], async () => messagesOf((id ??= (await readdir(path.join(home, ".kosong", "sessions")))[0]!)));
  });
});
