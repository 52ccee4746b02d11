/**
 * `Context.branches()` on a `context.jsonl` with 1,000 branches (quick:
 * 50): a conversation of 20 turns of W-sized messages (~0.8 KB each, ~34 KB
 * per file), branched 1,000 times by real operations (reverts to one of the
 * last three checkpoints and the turns written again, every fifth a kept
 * side branch, `addBranch`). Setup untimed.
 * Ours: the whole branch tree (the rotations listed, their notes read from
 * `context.jsonl.branches`, the tree built).
 * Baseline, same run, interleaved: `Context.rotations()`, the log's own
 * listing (a readdir and a stat per rotation), the least any listing of the
 * branches costs. A second row, informational: what a tree read from the
 * rotations themselves would cost (every rotation file parsed), against ours.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { assistantMessage, userMessage } from "@kosong/core";
import { readContextFile } from "@kosong/context/records";
import { Context } from "@kosong/soul";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { compare, toRow } from "../measure.ts";
import { W_WORDS } from "../workload-w.ts";

const TURNS = 20;

async function turn(context: Context, n: number): Promise<void> {
  await context.commit({ checkpoint: true, messages: [userMessage(`question ${n}: ${W_WORDS}`), assistantMessage(`answer ${n}: ${W_WORDS}`)] });
}

/** A context with `count` branches, as reverts and side questions leave them. */
async function branched(file: string, count: number): Promise<Context> {
  const context = new Context(file, { file: { durability: "none" } });
  await context.restore();
  for (let n = 0; n < TURNS; n += 1) await turn(context, n);
  for (let i = 0; i < count; i += 1) {
    if (i % 5 === 4) {
      await context.addBranch([userMessage(`by the way ${i}?`), assistantMessage(`aside ${i}`)]);
      continue;
    }
    const back = (i % 3) + 1;
    await context.revertTo(TURNS - back);
    for (let n = TURNS - back; n < TURNS; n += 1) await turn(context, n);
  }
  return context;
}

const benchmark: Benchmark = {
  name: "context-branches",
  async run({ quick }): Promise<BenchRow[]> {
    const count = quick ? 50 : 1000;
    const dir = await mkdtemp(path.join(os.tmpdir(), "kosong-bench-branches-"));
    const context = await branched(path.join(dir, "context.jsonl"), count);
    try {
      const rounds = quick ? { warmup: 2, rounds: 7 } : { warmup: 5, rounds: 31 };
      const check = (listed: readonly unknown[]) => {
        if (listed.length < count) throw new Error(`listed ${listed.length} branches, expected ${count}`);
      };
      const tree = await compare(async () => check(await context.branches()), async () => check(await context.rotations()), rounds);
      const fromFiles = async () => {
        const rotations = await context.rotations();
        for (const r of rotations) await readContextFile(r.location);
        check(rotations);
      };
      const naive = await compare(fromFiles, async () => check(await context.branches()), quick ? { warmup: 0, rounds: 3 } : { warmup: 1, rounds: 7 });
      const label = `${count.toLocaleString("en-US")} branches`;
      return [
        toRow(`Context.branches(), ${label}`, "Context.rotations() (readdir + a stat per rotation)", tree, {
          goal: 2,
          note: "ours: the rotations listed (same readdir + stats), context.jsonl.branches read, the tree built",
        }),
        toRow(`a tree read from the rotation files, ${label}`, "Context.branches()", naive, {
          note: "informational: parsing every rotation (what branches() avoids by keeping notes) against branches()",
        }),
      ];
    } finally {
      await context.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;
