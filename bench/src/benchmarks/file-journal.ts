/**
 * The file journal of @kosong/soul (issue 20), on real files in a temp dir.
 *
 * - WriteFile of 100 KB, journaled: a checkpoint (untimed), then what the
 *   WriteFile tool does with a journal: `declareWrite` (the prior content
 *   read in one confined walk, hashed, stored as a blob: its data and then
 *   its folder fsynced while the record is appended and fdatasynced),
 *   the write, `done()` (the stamp after). Baseline, same rounds: the write
 *   alone. Goal: the journal adds under 2 ms (see the note: the difference
 *   of the medians, and one 100 KB write + fdatasync, the floor of the
 *   blob's durability, measured in the same run).
 * - A revert restoring 1,000 files (1 KB each, quick: 100): `revertTo(0)` on
 *   a JSONL context whose journal has every file changed since checkpoint 0:
 *   each file's current state kept as a blob, the restore record fsynced,
 *   each file replaced atomically (temp, fsync, rename, folder fsync).
 *   Baseline, same rounds: writing the same files back with `writeFile`
 *   (no durability, no undo).
 * - The Shell scan on a 10,000-file working directory (quick: 1,000), warm:
 *   `scanCommand()` then `finish()` around a command that changes nothing
 *   (two walks through folder descriptors with an lstat of every file,
 *   contents already known from the first, untimed, scan). Goal: under
 *   150 ms. Baseline, same rounds: two bare recursive `readdir`s of the same
 *   tree (names only, no stats). The floor is the lstats: through
 *   `/proc/self/fd/N/name` (what keeps them confined) one costs about twice
 *   one by absolute path.
 */
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, open, readdir, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Context } from "@kosong/soul";
import { FileJournal, nodeWorkspaceFiles } from "@kosong/workspace";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { median, rowFromSamples, timeOnce } from "../measure.ts";

async function journaled(dir: string, maxScannedFiles?: number) {
  const root = await realpath(await mkdtemp(path.join(dir, "ws-")));
  const session = await mkdtemp(path.join(dir, "session-"));
  const commandScan = maxScannedFiles === undefined ? undefined : { maxFiles: maxScannedFiles, maxBytes: 1 << 30 };
  const journal = new FileJournal({ dir: path.join(session, "files"), files: nodeWorkspaceFiles(root), commandScan });
  const context = new Context(path.join(session, "context.jsonl"), { fileJournal: journal });
  await context.restore();
  return { root, journal, context, close: async () => (await context.close(), await journal.close()) };
}

async function writeFileRows(dir: string, rounds: number): Promise<BenchRow> {
  const { root, journal, context, close } = await journaled(dir);
  const file = path.join(root, "big.txt");
  const plain = path.join(root, "plain.txt");
  await writeFile(file, randomBytes(100 * 1024).toString("base64").slice(0, 100 * 1024));
  await writeFile(plain, "");
  const ours: number[] = [];
  const baseline: number[] = [];
  const fsyncs: number[] = [];
  for (let round = -3; round < rounds; round++) {
    // What one durable write costs on this disk, for the note: the journal's floor is one or two of these.
    fsyncs.push(await timeOnce(async () => {
      const handle = await open(plain, "w");
      await handle.writeFile(randomBytes(100 * 1024));
      await handle.datasync();
      await handle.close();
    }));
    const content = randomBytes(75 * 1024).toString("base64");
    await context.checkpoint();
    const journaledWrite = async () => {
      const declared = await journal.declareWrite([file]);
      await writeFile(file, content);
      await declared.done();
    };
    const bare = () => writeFile(plain, content);
    // The order of the sides turns every round.
    const first = round % 2 === 0 ? await timeOnce(journaledWrite) : await timeOnce(bare);
    const second = round % 2 === 0 ? await timeOnce(bare) : await timeOnce(journaledWrite);
    if (round < 0) continue;
    ours.push(round % 2 === 0 ? first : second);
    baseline.push(round % 2 === 0 ? second : first);
  }
  await close();
  const row = rowFromSamples("WriteFile 100 KB, journaled", ours, "the write alone", baseline);
  row.note = `journal adds ${(row.ours_ms - row.baseline_ms).toFixed(2)} ms per write (goal < 2 ms); one 100 KB write + fdatasync here takes ${median(fsyncs).toFixed(2)} ms`;
  return row;
}

async function revertRow(dir: string, files: number, rounds: number): Promise<BenchRow> {
  const ours: number[] = [];
  const baseline: number[] = [];
  const names = Array.from({ length: files }, (_, i) => `d${i % 10}/f${i}.txt`);
  for (let round = -1; round < rounds; round++) {
    const { root, journal, context, close } = await journaled(dir);
    for (let d = 0; d < 10; d++) await mkdir(path.join(root, `d${d}`));
    for (const name of names) await writeFile(path.join(root, name), `old ${name} ${"o".repeat(1000)}`);
    await context.checkpoint();
    const declared = await journal.declareWrite(names);
    for (const name of names) await writeFile(path.join(root, name), `new ${name} ${"n".repeat(1000)}`);
    await declared.done();
    await context.checkpoint();
    const revert = await timeOnce(async () => {
      const result = await context.revertTo(0);
      if (result.files?.restored.length !== files) throw new Error(`restored ${result.files?.restored.length} of ${files} files`);
    });
    const bare = await timeOnce(async () => {
      for (const name of names) await writeFile(path.join(root, name), `old ${name} ${"o".repeat(1000)}`);
    });
    await close();
    await rm(root, { recursive: true, force: true });
    if (round >= 0) {
      ours.push(revert);
      baseline.push(bare);
    }
  }
  return rowFromSamples(`revert restoring ${files.toLocaleString("en")} files`, ours, "writeFile of the same files", baseline);
}

async function scanRow(dir: string, files: number, rounds: number): Promise<BenchRow> {
  const { root, journal, close } = await journaled(dir, files);
  for (let d = 0; d < 100; d++) await mkdir(path.join(root, `d${d}`));
  for (let i = 0; i < files; i++) await writeFile(path.join(root, `d${i % 100}`, `f${i}.txt`), `file ${i}\n`);
  const scanned = async () => {
    const { notice } = await (await journal.scanCommand()).finish();
    if (notice !== null) throw new Error(notice);
  };
  const bare = async () => {
    await readdir(root, { recursive: true });
    await readdir(root, { recursive: true });
  };
  await scanned();
  const ours: number[] = [];
  const baseline: number[] = [];
  for (let round = 0; round < rounds; round++) {
    ours.push(await timeOnce(scanned));
    baseline.push(await timeOnce(bare));
  }
  await close();
  const row = rowFromSamples(`Shell scan of ${files.toLocaleString("en")} files, warm`, ours, "two recursive readdirs", baseline);
  row.note = "goal < 150 ms for 10,000 files";
  return row;
}

const benchmark: Benchmark = {
  name: "file-journal",
  async run({ quick }): Promise<BenchRow[]> {
    const dir = await mkdtemp(path.join(os.tmpdir(), "kosong-bench-journal-"));
    try {
      return [await writeFileRows(dir, quick ? 6 : 40), await revertRow(dir, quick ? 100 : 1000, quick ? 1 : 3), await scanRow(dir, quick ? 1000 : 10_000, quick ? 2 : 10)];
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;
