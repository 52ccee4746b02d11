/**
 * The soul's `Context.revertTo` to the middle checkpoint of workload W
 * (20,000 ~0.8 KB messages, a `_checkpoint` before every user message and a
 * `_usage` after every tool result; ~16 MB), on a restored `context.jsonl`.
 * Ours: the whole revert (the log's truncate-with-rotation: prefix copy,
 * fsyncs, the old file kept as context_1.jsonl; then the in-memory history,
 * token counts and checkpoints cut back, and the unanswered-call check).
 * Baseline, same run, interleaved: the I/O a durable revert cannot avoid,
 * copying the kept prefix into a new file + one fdatasync. Each sample
 * starts from a fresh, synced copy of W (untimed), restored for ours, and
 * a collected heap.
 * Quick mode: the first quarter of W, 3 rounds.
 */
import { copyFile, mkdtemp, open, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { JsonlContextFile } from "@kosong/context";
import { encodeRecord } from "@kosong/context/records";
import { Context } from "@kosong/soul";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { gcFunction, median, timeOnce } from "../measure.ts";
import { W_MESSAGES, workRecords } from "../workload-w.ts";

/** W's first `messages` messages as records, and the byte offset of each checkpoint. */
function workload(messages: number): { bytes: Buffer; checkpointOffsets: number[] } {
  const records = workRecords(messages);
  const checkpointOffsets: number[] = [];
  let offset = 0;
  const lines = records.map((record) => {
    const line = `${encodeRecord(record)}\n`;
    if (record.kind === "checkpoint") checkpointOffsets.push(offset);
    offset += Buffer.byteLength(line);
    return line;
  });
  return { bytes: Buffer.from(lines.join("")), checkpointOffsets };
}

type Side = { setup: () => Promise<void>; run: () => Promise<unknown> };

/**
 * Interleaved rounds, each sample after its own untimed setup (the order of
 * the sides turns every round): each side's median time, and the median
 * per-round ratio of the first side to the second.
 */
async function measure(rounds: number, sides: readonly Side[]): Promise<{ medians: number[]; ratio: number }> {
  const times = sides.map((): number[] => []);
  const gc = gcFunction();
  const sample = async (i: number, keep: boolean) => {
    await sides[i]!.setup();
    gc();
    const ms = await timeOnce(sides[i]!.run);
    if (keep) times[i]!.push(ms);
  };
  for (let i = 0; i < sides.length; i += 1) await sample(i, false);
  for (let round = 0; round < rounds; round += 1) {
    for (let k = 0; k < sides.length; k += 1) await sample((round + k) % sides.length, true);
  }
  return { medians: times.map(median), ratio: median(times[0]!.map((t, i) => t / times[1]![i]!)) };
}

const benchmark: Benchmark = {
  name: "soul-revert",
  async run({ quick }): Promise<BenchRow[]> {
    const messages = quick ? W_MESSAGES / 4 : W_MESSAGES;
    const dir = await mkdtemp(path.join(os.tmpdir(), "kosong-bench-revert-"));
    try {
      const { bytes, checkpointOffsets } = workload(messages);
      const master = path.join(dir, "master.jsonl");
      const file = path.join(dir, "context.jsonl");
      const copy = path.join(dir, "copy.jsonl");
      await writeFile(master, bytes);
      const middle = Math.floor(checkpointOffsets.length / 2);
      const kept = checkpointOffsets[middle]!;

      let context: Context | null = null;
      let log: JsonlContextFile | null = null;
      // A fresh, synced W each sample (the other sides' handles closed), so that no side pays for flushing the setup's pages.
      const fresh = async () => {
        await context?.close();
        await log?.close();
        for (const name of ["context.jsonl", "context_1.jsonl", "copy.jsonl"]) await rm(path.join(dir, name), { force: true });
        await copyFile(master, file);
        const handle = await open(file, "r+");
        await handle.sync();
        await handle.close();
      };
      const ours: Side = {
        setup: async () => {
          await fresh();
          context = new Context(file);
          await context.restore();
        },
        run: async () => {
          await context!.revertTo(middle);
          if (context!.history.length !== middle * 3) throw new Error("revertTo kept the wrong messages");
        },
      };
      const baseline: Side = {
        setup: fresh,
        run: async () => {
          const source = await open(file, "r");
          const prefix = Buffer.allocUnsafe(kept);
          await source.read(prefix, 0, kept, 0);
          await source.close();
          const target = await open(copy, "w");
          await target.writeFile(prefix);
          await target.datasync();
          await target.close();
        },
      };
      // The log's own truncate-with-rotation, timed in the same rounds, for the note: what the Context adds is the rest.
      const logAlone: Side = {
        setup: async () => {
          await fresh();
          log = await JsonlContextFile.open(file);
          await log.read();
        },
        run: () => log!.truncateAndRotate(kept),
      };
      const { medians, ratio } = await measure(quick ? 3 : 21, [ours, baseline, logAlone]);
      await (context as Context | null)?.close();
      await (log as JsonlContextFile | null)?.close();
      const [ours_ms, baseline_ms, log_ms] = medians as [number, number, number];
      const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
      return [
        {
          name: `Context.revertTo the middle of W (${messages.toLocaleString("en-US")} messages, ${mb(bytes.length)} MB; ${mb(kept)} MB kept)`,
          ours_ms,
          baseline_ms,
          ratio,
          baseline: "copy the kept prefix + one fdatasync",
          goal: 1.5,
          note:
            "ours: the log's truncate-with-rotation (prefix copy + fsync, old file kept as context_1.jsonl, rename, directory fsyncs) and the in-memory cut; restore untimed. " +
            `The log's truncateAndRotate alone, same rounds: ${log_ms.toFixed(1)} ms (${(log_ms / baseline_ms).toFixed(2)}x the baseline's median)`,
        },
      ];
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;
