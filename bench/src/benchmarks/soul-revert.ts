/**
 * The soul's `Context.revertTo` to the middle checkpoint of workload W
 * (20,000 ~0.8 KB messages, a `_checkpoint` before every user message and a
 * `_usage` after every tool result; ~16 MB), on a restored `context.jsonl`.
 * Ours: the whole revert (the log's truncate-with-rotation: prefix copy,
 * fsyncs, the old file kept as context_1.jsonl; then the in-memory history,
 * token counts and checkpoints cut back, and the unanswered-call check).
 * Baseline, same run, interleaved: the I/O a durable revert cannot avoid,
 * copying the kept prefix into a new file + one fdatasync. Each sample
 * starts from a fresh, synced copy of W (untimed), restored for ours.
 * Quick mode: the first quarter of W, 3 rounds.
 */
import { copyFile, mkdtemp, open, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { checkpointRecord, encodeRecord, messageRecord, usageRecord, type ContextRecord } from "@kosong/context/records";
import { Context } from "@kosong/soul";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { median, timeOnce } from "../measure.ts";
import { W_MESSAGES, workMessage } from "../workload-w.ts";

/** W's first `messages` messages as records, and the byte offset of each checkpoint. */
function workload(messages: number): { bytes: Buffer; checkpointOffsets: number[] } {
  const records: ContextRecord[] = [];
  let checkpoint = 0;
  for (let i = 0; i < messages; i += 1) {
    if (i % 3 === 0) records.push(checkpointRecord(checkpoint++));
    records.push(messageRecord(workMessage(i)));
    if (i % 3 === 2) records.push(usageRecord(1000 + i * 300));
  }
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

/** Interleaved rounds, each sample after its own untimed setup: median times and the median per-round ratio. */
async function measure(rounds: number, ours: Side, baseline: Side): Promise<{ ours_ms: number; baseline_ms: number; ratio: number }> {
  const a: number[] = [];
  const b: number[] = [];
  const sample = async (side: Side, into: number[]) => {
    await side.setup();
    into.push(await timeOnce(side.run));
  };
  await sample(ours, []);
  await sample(baseline, []);
  for (let round = 0; round < rounds; round += 1) {
    const order: Array<[Side, number[]]> = round % 2 === 0 ? [[ours, a], [baseline, b]] : [[baseline, b], [ours, a]];
    for (const [side, into] of order) await sample(side, into);
  }
  return { ours_ms: median(a), baseline_ms: median(b), ratio: median(a.map((t, i) => t / b[i]!)) };
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

      // A fresh, synced W each sample, so that neither side pays for flushing the setup's pages.
      const fresh = async () => {
        for (const name of ["context.jsonl", "context_1.jsonl", "copy.jsonl"]) await rm(path.join(dir, name), { force: true });
        await copyFile(master, file);
        const handle = await open(file, "r+");
        await handle.sync();
        await handle.close();
      };
      let context: Context | null = null;
      const ours: Side = {
        setup: async () => {
          await context?.close();
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
      const result = await measure(quick ? 3 : 15, ours, baseline);
      await (context as Context | null)?.close();
      const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
      return [
        {
          name: `Context.revertTo the middle of W (${messages.toLocaleString("en-US")} messages, ${mb(bytes.length)} MB; ${mb(kept)} MB kept)`,
          ...result,
          baseline: "copy the kept prefix + one fdatasync",
          goal: 1.5,
          note: "ours: the log's truncate-with-rotation (prefix copy + fsync, old file kept as context_1.jsonl, rename, directory fsyncs) and the in-memory cut; restore untimed",
        },
      ];
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;
