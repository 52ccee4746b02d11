/**
 * The checkpoint times the CLI keeps beside a session's conversation: saved
 * (0600, no temporary file left), read back by a later run, a reused id's
 * new time replacing the old, no time for a checkpoint whose message count
 * no longer matches, and a damaged, oversized or irregular file (a FIFO)
 * read as "times unknown" (line by line), never an error nor a hang; a
 * checkpoint appends its own line, so what a step writes does not grow with
 * the session; a long session keeps the newest times only; the file of
 * sessions saved before (`checkpoint-times.json`) is still read.
 */
import { execFileSync } from "node:child_process";
import { watch } from "node:fs";
import { appendFile, chmod, lstat, readdir, readFile, stat, symlink, truncate, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkpointTimesFile, CheckpointTimes, legacyCheckpointTimesFile, MAX_CHECKPOINT_TIME_LINES, MAX_CHECKPOINT_TIMES } from "../src/sessions/checkpoint-times.js";
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

  it("reads a damaged file of an earlier version as unknown times, keeping its sound entries, and replaces it on the next save", async () => {
    const dir = await tempDir();
    const file = path.join(dir, legacyCheckpointTimesFile);
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
    expect(await readdir(dir)).toEqual([checkpointTimesFile]);
    expect(await savedLines(dir)).toEqual([{ id: 3, at: later.toISOString(), messages: 5 }]);
  });

  it("reads damaged lines, control characters and a last line cut short as unknown times, keeping the sound lines, and rewrites a cut file at the next save", async () => {
    const dir = await tempDir();
    const file = path.join(dir, checkpointTimesFile);
    const sound = (id: number, messages: number) => JSON.stringify({ id, at: first.toISOString(), messages });
    await writeFile(file, [sound(0, 0), "{not json", `{"id":1,"at":"\u001b[31m","messages":1}`, "\u0000\u001b]0;x\u0007", sound(2, 4), JSON.stringify({ id: -1, at: first.toISOString(), messages: 0 }), sound(5, 10).replace("-01-", "-13-"), sound(3, 6).slice(0, -4)].join("\n"));
    const times = await CheckpointTimes.open(dir);
    expect([times.timeOf({ id: 0, messageCount: 0 }), times.timeOf({ id: 2, messageCount: 4 })]).toEqual([first, first]);
    expect([times.timeOf({ id: 1, messageCount: 1 }), times.timeOf({ id: 3, messageCount: 6 }), times.timeOf({ id: 5, messageCount: 10 })]).toEqual([null, null, null]);
    await times.record({ id: 3, messageCount: 6 }, later);
    // The cut line is gone, and the new time is a line of its own (not glued to the cut one).
    expect(await savedLines(dir)).toEqual([0, 2].map((id) => ({ id, at: first.toISOString(), messages: id * 2 })).concat({ id: 3, at: later.toISOString(), messages: 6 }));
    await times.record({ id: 4, messageCount: 8 }, later);
    const reopened = await CheckpointTimes.open(dir);
    expect([reopened.timeOf({ id: 3, messageCount: 6 }), reopened.timeOf({ id: 4, messageCount: 8 })]).toEqual([later, later]);
  });

  it("writes a new session's first time with one append, as any later one: no temporary file and no replace", async () => {
    const dir = await tempDir();
    const times = await CheckpointTimes.open(dir);
    const named: string[] = [];
    const watcher = watch(dir, (_, name) => void (name !== null && named.push(name)));
    try {
      await times.record({ id: 0, messageCount: 0 }, first);
      // Events come in order: once the file's own has come, a temporary file's (made before it) has too.
      while (!named.includes(checkpointTimesFile)) await sleep(5);
    } finally {
      watcher.close();
    }
    expect(named.filter((name) => name !== checkpointTimesFile)).toEqual([]);
    expect((await CheckpointTimes.open(dir)).timeOf({ id: 0, messageCount: 0 })).toEqual(first);
  });

  it("appends one line per checkpoint: what a save writes does not grow with the session, and the file stays 0600", async () => {
    const lineFor = (id: number, at: Date) => `${JSON.stringify({ id, at: at.toISOString(), messages: 100_000 + id })}\n`;
    const grows: number[] = [];
    // A session of 100 checkpoints made here, and one of MAX_CHECKPOINT_TIMES an earlier run left.
    for (const made of [100, MAX_CHECKPOINT_TIMES]) {
      const dir = await tempDir();
      const file = path.join(dir, checkpointTimesFile);
      if (made === MAX_CHECKPOINT_TIMES) await writeFile(file, Array.from({ length: made }, (_, id) => lineFor(id, first)).join(""), { mode: 0o600 });
      const times = await CheckpointTimes.open(dir);
      for (let id = made === MAX_CHECKPOINT_TIMES ? made : 0; id < made; id++) await times.record({ id, messageCount: 100_000 + id }, first);
      const before = await stat(file);
      await times.record({ id: made, messageCount: 100_000 + made }, later);
      const after = await stat(file);
      expect(after.ino).toBe(before.ino);
      grows.push(after.size - before.size);
      expect(await readdir(dir)).toEqual([checkpointTimesFile]);
      // A file another program left readable by others is made private again.
      await chmod(file, 0o644);
      await times.record({ id: 1, messageCount: 3 }, later);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const reopened = await CheckpointTimes.open(dir);
      expect([reopened.timeOf({ id: 1, messageCount: 3 }), reopened.timeOf({ id: made, messageCount: 100_000 + made }), reopened.timeOf({ id: 2, messageCount: 100_002 })]).toEqual([later, later, first]);
    }
    // Each save grew the file by its own line, at checkpoint 100 as at checkpoint 8,000: nothing else was written.
    expect(grows).toEqual([100, MAX_CHECKPOINT_TIMES].map((id) => lineFor(id, later).length));
  });

  it("replaces a file grown past its bound by the newest times, atomically", async () => {
    const dir = await tempDir();
    const file = path.join(dir, checkpointTimesFile);
    const lines = Array.from({ length: MAX_CHECKPOINT_TIME_LINES }, (_, id) => `${JSON.stringify({ id, at: first.toISOString(), messages: id })}\n`);
    await writeFile(file, lines.join(""), { mode: 0o600 });
    const times = await CheckpointTimes.open(dir);
    const last = MAX_CHECKPOINT_TIME_LINES;
    await times.record({ id: last, messageCount: last }, later);
    const saved = await savedLines(dir);
    expect(saved).toHaveLength(MAX_CHECKPOINT_TIMES);
    expect(saved[0]).toEqual({ id: last - MAX_CHECKPOINT_TIMES + 1, at: first.toISOString(), messages: last - MAX_CHECKPOINT_TIMES + 1 });
    expect(saved.at(-1)).toEqual({ id: last, at: later.toISOString(), messages: last });
    expect(await readdir(dir)).toEqual([checkpointTimesFile]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // Past the replacement, saves append again.
    const size = (await stat(file)).size;
    await times.record({ id: last + 1, messageCount: 1 }, later);
    expect((await stat(file)).size).toBe(size + `${JSON.stringify({ id: last + 1, at: later.toISOString(), messages: 1 })}\n`.length);
  });

  it("reads a FIFO, a link or a huge file in place of the times as unknown times without waiting, and replaces it at the next save", async () => {
    for (const name of [checkpointTimesFile, legacyCheckpointTimesFile]) {
      const dir = await tempDir();
      execFileSync("mkfifo", ["-m", "600", path.join(dir, name)]);
      const times = await CheckpointTimes.open(dir);
      expect(times.timeOf({ id: 0, messageCount: 0 })).toBeNull();
      const errors: unknown[] = [];
      await times.record({ id: 0, messageCount: 0 }, first, (error) => errors.push(error));
      expect(errors).toEqual([]);
      expect(await readdir(dir)).toEqual([checkpointTimesFile]);
      expect((await CheckpointTimes.open(dir)).timeOf({ id: 0, messageCount: 0 })).toEqual(first);
    }
    // A link is not followed (its target stays as it was).
    const linked = await tempDir();
    const target = path.join(await tempDir(), "elsewhere.jsonl");
    const targetText = `${JSON.stringify({ id: 0, at: first.toISOString(), messages: 0 })}\n`;
    await writeFile(target, targetText);
    await symlink(target, path.join(linked, checkpointTimesFile));
    const throughLink = await CheckpointTimes.open(linked);
    expect(throughLink.timeOf({ id: 0, messageCount: 0 })).toBeNull();
    await throughLink.record({ id: 1, messageCount: 1 }, later);
    expect(await readFile(target, "utf8")).toBe(targetText);
    expect((await lstat(path.join(linked, checkpointTimesFile))).isFile()).toBe(true);

    const dir = await tempDir();
    const file = path.join(dir, checkpointTimesFile);
    await writeFile(file, targetText);
    await truncate(file, 64 * 1024 * 1024);
    await appendFile(file, `\n${JSON.stringify({ id: 1, at: first.toISOString(), messages: 1 })}\n`);
    const times = await CheckpointTimes.open(dir);
    expect([times.timeOf({ id: 0, messageCount: 0 }), times.timeOf({ id: 1, messageCount: 1 })]).toEqual([null, null]);
    await times.record({ id: 2, messageCount: 2 }, later);
    expect(await savedLines(dir)).toEqual([{ id: 2, at: later.toISOString(), messages: 2 }]);
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

  it("keeps the newest times of a long session saved by an earlier version: read from its file, the oldest times dropped first", async () => {
    const dir = await tempDir();
    // A session that has made checkpoints 0 .. MAX-1 (written as an earlier version left them).
    const full = Object.fromEntries(Array.from({ length: MAX_CHECKPOINT_TIMES }, (_, id) => [id, { at: first.toISOString(), messages: id * 3 }]));
    await writeFile(path.join(dir, legacyCheckpointTimesFile), `${JSON.stringify(full, null, 1)}\n`);
    const times = await CheckpointTimes.open(dir);
    expect(times.timeOf({ id: 0, messageCount: 0 })).toEqual(first);
    for (let id = MAX_CHECKPOINT_TIMES; id < MAX_CHECKPOINT_TIMES + 3; id++) await times.record({ id, messageCount: id * 3 }, later);
    const reopened = await CheckpointTimes.open(dir);
    expect([0, 1, 2].map((id) => reopened.timeOf({ id, messageCount: id * 3 }))).toEqual([null, null, null]);
    expect(reopened.timeOf({ id: 3, messageCount: 9 })).toEqual(first);
    expect(reopened.timeOf({ id: MAX_CHECKPOINT_TIMES + 2, messageCount: (MAX_CHECKPOINT_TIMES + 2) * 3 })).toEqual(later);
    expect(await readdir(dir)).toEqual([checkpointTimesFile]);
    expect(new Set((await savedLines(dir)).map((line) => line.id)).size).toBe(MAX_CHECKPOINT_TIMES + 2);
  });
});

async function savedLines(dir: string): Promise<{ id: number }[]> {
  const text = await readFile(path.join(dir, checkpointTimesFile), "utf8");
  expect(text.endsWith("\n")).toBe(true);
  return text.trimEnd().split("\n").map((line) => JSON.parse(line) as { id: number });
}
