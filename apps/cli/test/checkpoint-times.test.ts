/**
 * The checkpoint times the CLI keeps beside a session's conversation: saved
 * atomically (0600, no temporary file left), read back by a later run, a
 * reused id's new time replacing the old, no time for a checkpoint whose
 * message count no longer matches, and a damaged or oversized file read as
 * "times unknown" (entry by entry), never an error; a long session keeps
 * the newest times only, so the file stays readable.
 */
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkpointTimesFile, CheckpointTimes, MAX_CHECKPOINT_TIMES } from "../src/sessions/checkpoint-times.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();
const first = new Date("2026-01-02T03:04:05.000Z");
const later = new Date("2026-01-02T04:00:00.000Z");

describe("CheckpointTimes", () => {
  it("saves each checkpoint's time atomically (0600) for a later run, and a reused id's new time replaces the old", async () => {
    const dir = await tempDir();
    const times = await CheckpointTimes.open(dir);
    await times.record({ id: 0, messageCount: 0 }, first);
    await times.record({ id: 1, messageCount: 2 }, first);
    expect(await readdir(dir)).toEqual([checkpointTimesFile]);
    expect((await stat(path.join(dir, checkpointTimesFile))).mode & 0o777).toBe(0o600);

    const reopened = await CheckpointTimes.open(dir);
    expect(reopened.timeOf({ id: 1, messageCount: 2 })).toEqual(first);
    // After a revert, id 1 is made again at another point of the conversation.
    await reopened.record({ id: 1, messageCount: 4 }, later);
    const again = await CheckpointTimes.open(dir);
    expect(again.timeOf({ id: 0, messageCount: 0 })).toEqual(first);
    expect(again.timeOf({ id: 1, messageCount: 4 })).toEqual(later);
    // The old checkpoint 1 (a restored rotation holds it) has no time rather than the new one's.
    expect(again.timeOf({ id: 1, messageCount: 2 })).toBeNull();
    expect(again.timeOf({ id: 7, messageCount: 9 })).toBeNull();
  });

  it("reads a damaged file as unknown times, keeping its sound entries, and replaces it on the next save", async () => {
    const dir = await tempDir();
    const file = path.join(dir, checkpointTimesFile);
    await writeFile(file, JSON.stringify({ "0": { at: first.toISOString(), messages: 0 }, "1": { at: "yesterday", messages: 1 }, x: { at: first.toISOString(), messages: 0 }, "2": "\u001b[31m" }));
    const times = await CheckpointTimes.open(dir);
    expect(times.timeOf({ id: 0, messageCount: 0 })).toEqual(first);
    expect(times.timeOf({ id: 1, messageCount: 1 })).toBeNull();
    for (const text of ["{not json", "[1,2]", "null", ""]) {
      await writeFile(file, text);
      expect((await CheckpointTimes.open(dir)).timeOf({ id: 0, messageCount: 0 })).toBeNull();
    }
    await writeFile(file, `{"0": {"at": "${first.toISOString()}", "messages": 0}, "pad": "${"x".repeat(1024 * 1024)}"}`);
    expect((await CheckpointTimes.open(dir)).timeOf({ id: 0, messageCount: 0 })).toBeNull();
    const fresh = await CheckpointTimes.open(dir);
    await fresh.record({ id: 3, messageCount: 5 }, later);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ "3": { at: later.toISOString(), messages: 5 } });
  });

  it("keeps times in memory without a session folder, and reports a failed save without throwing", async () => {
    const inMemory = await CheckpointTimes.open(null);
    await inMemory.record({ id: 0, messageCount: 0 }, first);
    expect(inMemory.timeOf({ id: 0, messageCount: 0 })).toEqual(first);

    const gone = path.join(await tempDir(), "removed-session");
    const times = await CheckpointTimes.open(gone);
    const errors: unknown[] = [];
    await times.record({ id: 0, messageCount: 0 }, first, (error) => errors.push(error));
    expect(errors).toHaveLength(1);
    expect(times.timeOf({ id: 0, messageCount: 0 })).toEqual(first);
  });

  it("keeps the newest times of a long session only: the file stays small enough to be read back, the oldest times go first", async () => {
    const dir = await tempDir();
    // A session that has made checkpoints 0 .. MAX-1 (written as a run leaves them).
    const full = Object.fromEntries(Array.from({ length: MAX_CHECKPOINT_TIMES }, (_, id) => [id, { at: first.toISOString(), messages: id * 3 }]));
    await writeFile(path.join(dir, checkpointTimesFile), `${JSON.stringify(full, null, 1)}\n`);
    const times = await CheckpointTimes.open(dir);
    for (let id = MAX_CHECKPOINT_TIMES; id < MAX_CHECKPOINT_TIMES + 3; id++) await times.record({ id, messageCount: id * 3 }, later);
    const reopened = await CheckpointTimes.open(dir);
    expect([0, 1, 2].map((id) => reopened.timeOf({ id, messageCount: id * 3 }))).toEqual([null, null, null]);
    expect(reopened.timeOf({ id: 3, messageCount: 9 })).toEqual(first);
    expect(reopened.timeOf({ id: MAX_CHECKPOINT_TIMES + 2, messageCount: (MAX_CHECKPOINT_TIMES + 2) * 3 })).toEqual(later);
    expect(Object.keys(JSON.parse(await readFile(path.join(dir, checkpointTimesFile), "utf8")) as object)).toHaveLength(MAX_CHECKPOINT_TIMES);
  });
});
