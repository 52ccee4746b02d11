/**
 * The context file (kimi-cli's context.jsonl) on workload W: 20,000 ~0.8 KB
 * messages cycling user / assistant (think part + tool call) / tool result,
 * with a `_checkpoint` and a `_usage` record every 3 messages (33,333
 * lines, ~16.5 MB). Each row runs against a plain durable writer or reader
 * of the same bytes, measured in the same run, interleaved:
 *
 * - append W, durability "batch", one `append` call per record, all issued
 *   without waiting (as concurrent callers do), so group commit makes them
 *   one write and one fdatasync; open, lock and close included. Baseline:
 *   core's `serializeMessage` for every record (the internal records' own
 *   lines), one write, one fdatasync.
 * - append records of W one at a time, each awaited before the next (as an
 *   agent loop does). Baseline: an awaited `FileHandle` write of the
 *   serialized record + datasync per record.
 * - restore W with `readContextFile` (every line validated; messages, token
 *   count, checkpoints). Baseline: readline over a read stream +
 *   `JSON.parse` of every line, keeping the parsed objects. The note
 *   reports the heap that the restored W holds (after GC) and the peak heap
 *   during the restore, against the file size.
 * - truncate-with-rotation to the middle checkpoint (prefix copied and
 *   fdatasynced, old file kept as context_1.jsonl by a hard link, rename,
 *   directory fsyncs). Baseline: reading the kept prefix, writing it to a
 *   new file and one fdatasync.
 */
import { createReadStream } from "node:fs";
import { copyFile, mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { serializeMessage } from "@kosong/core";
import { JsonlContextFile } from "@kosong/context";
import { encodeRecord, readContextFile, scanContextFile, ContextStateBuilder, type ContextRecord } from "@kosong/context/records";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { gcFunction, median, timeOnce } from "../measure.ts";
import { W_MESSAGES, workRecords } from "../workload-w.ts";

type Step = { setup: () => Promise<void>; run: () => Promise<unknown> };

/** Interleaved rounds with untimed per-sample setup; median times and median per-round ratio. */
async function measure(rounds: number, ours: Step, baseline: Step): Promise<{ ours_ms: number; baseline_ms: number; ratio: number }> {
  const a: number[] = [];
  const b: number[] = [];
  const sample = async (side: Step, into: number[]) => {
    await side.setup();
    into.push(await timeOnce(side.run));
  };
  await sample(ours, []);
  await sample(baseline, []);
  for (let round = 0; round < rounds; round += 1) {
    if (round % 2 === 0) {
      await sample(ours, a);
      await sample(baseline, b);
    } else {
      await sample(baseline, b);
      await sample(ours, a);
    }
  }
  return { ours_ms: median(a), baseline_ms: median(b), ratio: median(a.map((t, i) => t / b[i]!)) };
}

/** A record's line as a plain writer makes it: core's serializeMessage for messages, the record's own line otherwise. */
const plainLine = (record: ContextRecord) => `${record.kind === "message" ? serializeMessage(record.message) : encodeRecord(record)}\n`;

async function heapFigures(file: string, fileBytes: number): Promise<string> {
  const gc = gcFunction();
  gc();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const builder = new ContextStateBuilder();
  let n = 0;
  const report = await scanContextFile(file, (scanned) => {
    builder.apply(scanned.record, scanned.offset);
    if (++n % 500 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
  });
  const state = builder.finish(report);
  gc();
  const retained = process.memoryUsage().heapUsed - before;
  if (state.messages.length !== W_MESSAGES) throw new Error("restore lost messages");
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  return `heap held by the restored W: ${mb(retained)} MB = ${(retained / fileBytes).toFixed(2)}x the ${mb(fileBytes)} MB file (peak during restore ${(((peak - before) / fileBytes) || 0).toFixed(2)}x)`;
}

async function readlineParse(file: string): Promise<unknown[]> {
  const out: unknown[] = [];
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) if (line) out.push(JSON.parse(line));
  return out;
}

const benchmark: Benchmark = {
  name: "context-jsonl",
  async run({ quick }): Promise<BenchRow[]> {
    const rounds = quick ? 3 : 21;
    const dir = await mkdtemp(path.join(os.tmpdir(), "kosong-bench-context-"));
    try {
      const records = workRecords();
      const bytes = Buffer.from(records.map((r) => `${encodeRecord(r)}\n`).join(""));
      const master = path.join(dir, "master.jsonl");
      await writeFile(master, bytes);
      const file = path.join(dir, "context.jsonl");
      const floorFile = path.join(dir, "floor.jsonl");
      const clean = async () => {
        await rm(file, { force: true });
        await rm(path.join(dir, "context_1.jsonl"), { force: true });
        await rm(floorFile, { force: true });
      };

      /** Writes `data` to a new file with one write and one fdatasync. */
      const writeSync = async (data: string | Buffer) => {
        const handle = await open(floorFile, "w");
        await handle.writeFile(data);
        await handle.datasync();
        await handle.close();
      };

      // append W, all at once
      const appendW = async () => {
        const ctx = await JsonlContextFile.open(file, { durability: "batch" });
        await Promise.all(records.map((r) => ctx.append([r])));
        await ctx.close();
      };
      await clean();
      await appendW();
      if (!(await readFile(file)).equals(bytes)) throw new Error("append wrote different bytes");
      const append = await measure(rounds, { setup: clean, run: appendW }, { setup: clean, run: () => writeSync(records.map(plainLine).join("")) });

      // append one record at a time, awaited
      // Each sample is dominated by 200 fdatasyncs, whose latency swings with other disk traffic: shorter samples in
      // more rounds keep the two sides of a round close in time.
      const loopRecords = records.slice(0, quick ? 40 : 200);
      const appendLoop = async () => {
        const ctx = await JsonlContextFile.open(file, { durability: "batch" });
        for (const record of loopRecords) await ctx.append([record]);
        await ctx.close();
      };
      const writeLoop = async () => {
        const handle = await open(floorFile, "a");
        for (const record of loopRecords) {
          await handle.write(plainLine(record));
          await handle.datasync();
        }
        await handle.close();
      };
      const loop = await measure(quick ? rounds : 31, { setup: clean, run: appendLoop }, { setup: clean, run: writeLoop });

      // restore W
      await copyFile(master, file);
      let restored = 0;
      let parsed = 0;
      const restore = await measure(
        rounds,
        { setup: async () => undefined, run: async () => (restored = (await readContextFile(file)).messages.length) },
        { setup: async () => undefined, run: async () => (parsed = (await readlineParse(file)).length) },
      );
      if (restored !== W_MESSAGES || parsed !== records.length) throw new Error("restore read the wrong number of records");
      const heap = await heapFigures(file, bytes.length);

      // truncate-with-rotation to the middle. The setup's copy is synced, so that its dirty pages are
      // not flushed by (and charged to) the directory fsync of whichever side runs next.
      const freshCopy = async () => {
        await clean();
        await copyFile(master, file);
        const handle = await open(file, "r+");
        await handle.sync();
        await handle.close();
      };
      const middle = (await readContextFile(master)).checkpoints[Math.floor(W_MESSAGES / 6)]!.position;
      const readPrefix = async () => {
        const source = await open(file, "r");
        const prefix = Buffer.allocUnsafe(middle);
        await source.read(prefix, 0, middle, 0);
        await source.close();
        return prefix;
      };
      let ctx: JsonlContextFile | null = null;
      const truncate = await measure(
        rounds,
        {
          setup: async () => {
            await ctx?.close();
            await freshCopy();
            ctx = await JsonlContextFile.open(file);
          },
          run: () => ctx!.truncateAndRotate(middle),
        },
        { setup: freshCopy, run: async () => writeSync(await readPrefix()) },
      );
      await (ctx as JsonlContextFile | null)?.close();

      const mb = (bytes.length / 1024 / 1024).toFixed(1);
      const lines = records.length.toLocaleString("en-US");
      return [
        {
          name: `append W (${lines} lines, ${mb} MB), batch, all at once`,
          ...append,
          baseline: "serializeMessage every record + one write + one fdatasync",
          goal: 1.2,
          note:
            "ours: one append() per record, all in one tick -> one write + one fdatasync; each message validated (a checked copy), " +
            "every call a promise with its receipt, open/lock/close included. kimi-cli's Python Context: 21.5 s",
        },
        {
          name: `append ${loopRecords.length} records of W one at a time, awaited, batch`,
          ...loop,
          baseline: "an awaited FileHandle write + datasync per record",
          goal: 1.2,
          note: "as an agent loop appends: each append waits for its own write and fdatasync; open/lock/close included",
        },
        {
          name: `restore W (${lines} lines)`,
          ...restore,
          baseline: "readline + JSON.parse per line",
          goal: 1.5,
          note: `ours validates every message and folds checkpoints; ${heap}. kimi-cli: 7.4 s`,
        },
        {
          name: "truncate-with-rotation to the middle",
          ...truncate,
          baseline: "copy the kept prefix + one fdatasync",
          goal: 1.5,
          note: "ours: prefix copy + fdatasync, hard-link rotation, directory fsync, rename, directory fsync. kimi-cli: 7.2 s",
        },
      ];
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;
