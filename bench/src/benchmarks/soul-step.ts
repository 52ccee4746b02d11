/**
 * The Soul loop's cost per step as history grows: a zero-latency scripted
 * model that calls one instant tool every step, on a real `context.jsonl`
 * (durability "batch") holding 100 and 10,000 messages of workload W.
 *
 * A step is timed from one LLM call to the next (the model notes when it is
 * called): streaming the reply, running the tool, the step's records
 * (checkpoint, `_usage`, the assistant message with its result), the events,
 * the next step's compaction check and checkpoint. Each round runs a turn of
 * `STEPS` steps per history size and takes the median step, then reverts
 * the turn (untimed) so the history stays the same size. The fdatasyncs the
 * steps made are counted from the log's stats and reported.
 *
 * Baseline, same run, interleaved: what the step's records owe the disk, one
 * awaited write + fdatasync of the same bytes (the step's lines). Goals: a
 * step within 0.5 ms of it (the goal column is that as a ratio, from this
 * run's baseline), and the step at 10,000 messages within 1.5x the step at
 * 100. Rows with durability "none" show the loop's own cost without the
 * disk. Quick mode: 1,000 messages instead of 10,000, 3 rounds.
 *
 * The history above has no checkpoint; a real session's has one every two
 * messages or so (the soul makes one per prompt and per step). The rows
 * "with a checkpoint every 2 messages" time the same step on such a
 * history (10,000 messages, 5,000 checkpoints, written as a session writes
 * them), so a per-step cost that grows with the checkpoints shows there,
 * against the same history without them.
 *
 * With `KOSONG_BENCH_BASELINE_TREE` set to another checkout whose packages
 * are built (e.g. the previous round's commit: `git worktree add ../base
 * <commit> && cd ../base && pnpm install && pnpm turbo run build
 * --filter=@kosong/bench...`), that build's Soul, Context and context file
 * run the same steps in the same rounds, alternating with ours, and get
 * rows of their own: the step against that build's (goal 1.05), and the
 * same without the disk (informational: the loop's own cost, which the
 * fdatasync's noise hides). Several builds: their trees separated by the
 * path delimiter (`:`), each with its own rows, all in the same rounds.
 */
import { mkdtemp, open, readFile, rm, type FileHandle } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import { toolOk, type ToolCall, type ToolResult, type Toolset } from "@kosong/core";
import { JsonlContextFile, type Durability } from "@kosong/context";
import { ScriptedChatProvider, type ChatScript } from "@kosong/core/testing";
import { Context, Soul } from "@kosong/soul";
import { systemPromptRecord } from "@kosong/context/records";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { median, rotatingRounds, rowFromSamples } from "../measure.ts";
import { workMessage, workRecords } from "../workload-w.ts";

/** Steps per timed turn (the median of their gaps is the round's sample). */
const STEPS = 16;

/** The system prompt of every rig. */
const PROMPT = "You are a benchmark agent.";

/** A real session's history: a checkpoint every this many messages (the soul makes one per prompt and per step). */
const CHECKPOINT_EVERY = 2;

/** A toolset with one tool, `echo`, that answers at once with its arguments (`ok`: the build's `toolOk`). */
export function echoToolset(ok: typeof toolOk = toolOk): Toolset {
  return {
    tools: [{ name: "echo", description: "Returns its arguments.", parameters: { type: "object", properties: { text: { type: "string" } } } }],
    handle: (call: ToolCall): Promise<ToolResult> => Promise.resolve({ tool_call_id: call.id, return_value: ok(`echo: ${call.function.arguments ?? ""}`) }),
  };
}

/** What a rig runs on: this checkout's packages, or another build's (their shapes as far as the rig uses them). */
interface Build {
  Soul: typeof Soul;
  Context: typeof Context;
  JsonlContextFile: typeof JsonlContextFile;
  ScriptedChatProvider: typeof ScriptedChatProvider;
  toolOk: typeof toolOk;
}

const ours: Build = { Soul, Context, JsonlContextFile, ScriptedChatProvider, toolOk };

/** The build of the checkout at `tree` (its packages' `dist`). */
async function buildAt(tree: string): Promise<Build> {
  const load = (file: string) => import(pathToFileURL(path.join(tree, "packages", file)).href);
  const [soul, context, testing, core] = await Promise.all(["soul/dist/index.js", "kosong-context/dist/index.js", "kosong-core/dist/testing/index.js", "kosong-core/dist/index.js"].map(load));
  return { Soul: soul.Soul, Context: soul.Context, JsonlContextFile: context.JsonlContextFile, ScriptedChatProvider: testing.ScriptedChatProvider, toolOk: core.toolOk };
}

/**
 * A soul of `build` over a context of `messages` W messages, whose model
 * times the gaps between its calls. With `checkpointEvery`, the history
 * holds a checkpoint every that many messages and a usage record after
 * each tool result, written by this checkout's writer (the same bytes for
 * every build) before `build` opens it; without, one append of the
 * messages and no checkpoint.
 */
async function rig(dir: string, messages: number, durability: Durability, build: Build = ours, name = "ours", checkpointEvery: number | null = null) {
  const { Soul, Context, JsonlContextFile, ScriptedChatProvider } = build;
  const file = path.join(dir, `context-${messages}-${checkpointEvery ?? 0}-${durability}-${name}.jsonl`);
  if (checkpointEvery !== null) {
    const writer = await ours.JsonlContextFile.open(file, { durability: "none" });
    await writer.append([systemPromptRecord(PROMPT), ...workRecords(messages, checkpointEvery)]);
    await writer.close();
  }
  const log = await JsonlContextFile.open(file, { durability });
  const context = new Context(log);
  await context.restore();
  await context.writeSystemPrompt(PROMPT);
  if (checkpointEvery === null) await context.appendMessage(Array.from({ length: messages }, (_, i) => workMessage(i)));
  const gaps: number[] = [];
  let last: number | null = null;
  let n = 0;
  /** fdatasyncs of the log between the first and the last LLM call of every turn so far, and the steps between them. */
  const syncs = { count: 0, steps: 0, atFirstCall: 0 };
  const model: ChatScript = (history) => {
    const now = performance.now();
    if (last !== null) gaps.push(now - last);
    else syncs.atFirstCall = log.stats.syncs;
    last = now;
    n++;
    const args = JSON.stringify({ text: `look at item ${n}` });
    return `text: Looking at item ${n} of ${history.length}.\nusage: input_other=${1000 + n} output=20\ntool_call: ${JSON.stringify({ id: `call_step_${n}`, name: "echo", arguments: args })}`;
  };
  const agent = { name: "bench", systemPrompt: PROMPT, toolset: echoToolset(build.toolOk) };
  let lastStep: Buffer = Buffer.alloc(0);
  /**
   * Runs a turn of STEPS steps, reverts it, and returns the median step (ms).
   * A new provider (and so a new soul) each turn: ScriptedChatProvider keeps a
   * copy of the history list per call, which over many turns would make the
   * garbage collector's work grow with the history.
   */
  const turn = async (): Promise<number> => {
    const provider = new ScriptedChatProvider(Array.from({ length: STEPS }, () => model));
    const soul = new Soul({ agent, provider, context, config: { maxStepsPerTurn: STEPS } });
    gaps.length = 0;
    last = null;
    const checkpoint = context.nCheckpoints;
    const result = await soul.run("Look at the next items.").result;
    // A Context belongs to one Soul at a time: hand it on to the next turn's soul (a build from before release() had none).
    (soul as { release?: () => void }).release?.();
    if (result.stopReason !== "max_steps") throw new Error(`the turn ended with ${result.stopReason}: ${result.error?.message ?? ""}`);
    const step = median(gaps);
    syncs.count += log.stats.syncs - syncs.atFirstCall;
    syncs.steps += gaps.length;
    lastStep = await lastStepBytes(file);
    const { rotation } = await context.revertTo(checkpoint);
    await rm(rotation.location, { force: true });
    return step;
  };
  return { context, turn, lastStep: () => lastStep, syncsPerStep: () => syncs.count / syncs.steps };
}

/** The lines of the last step in `file`: its checkpoint, `_usage`, and the assistant message with its result. */
async function lastStepBytes(file: string): Promise<Buffer> {
  const lines = (await readFile(file, "utf8")).trimEnd().split("\n");
  const start = lines.findLastIndex((line) => (JSON.parse(line) as { role: string }).role === "_checkpoint");
  return Buffer.from(lines.slice(start).map((line) => `${line}\n`).join(""));
}

/** An awaited write + fdatasync of `bytes`, `times` times; returns the median time of one. */
async function durableWrites(handle: FileHandle, bytes: Buffer, times: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    await handle.write(bytes);
    await handle.datasync();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

type Sampler = () => Promise<number>;

/** A rig as the rounds use it. */
type Rig = Awaited<ReturnType<typeof rig>>;

/** Another build to run against (`KOSONG_BENCH_BASELINE_TREE`), and how its rows name it. */
interface Other {
  tree: string;
  key: string;
  label: string;
  build: Build;
}

const benchmark: Benchmark = {
  name: "soul-step",
  async run({ quick }): Promise<BenchRow[]> {
    const dir = await mkdtemp(path.join(os.tmpdir(), "kosong-bench-step-"));
    /** The contexts of the phase running (closed when it ends, so the next phase's heap does not hold them). */
    const contexts: Context[] = [];
    const closeAll = async () => {
      for (const context of contexts.splice(0)) await context.close();
    };
    let handle: FileHandle | null = null;
    try {
      const size = quick ? 1_000 : 10_000;
      const many = size.toLocaleString("en-US");
      const dense = `${many} messages of history with a checkpoint every ${CHECKPOINT_EVERY}`;
      /**
       * The steps at 100 messages, at `size`, and at `size` with a checkpoint
       * every CHECKPOINT_EVERY messages, as samplers named `${key}small`,
       * `${key}large` and `${key}dense`; each rigged, kept for closing, and
       * run once (untimed).
       */
      const trio = async (durability: Durability, key: string, build?: Build): Promise<{ rigs: Rig[]; sides: Record<string, Sampler> }> => {
        const name = key === "" ? "ours" : key;
        const rigs = [await rig(dir, 100, durability, build, name), await rig(dir, size, durability, build, name), await rig(dir, size, durability, build, name, CHECKPOINT_EVERY)];
        for (const one of rigs) {
          contexts.push(one.context);
          await one.turn();
        }
        return { rigs, sides: { [`${key}small`]: rigs[0]!.turn, [`${key}large`]: rigs[1]!.turn, [`${key}dense`]: rigs[2]!.turn } };
      };
      const trees = (process.env.KOSONG_BENCH_BASELINE_TREE ?? "").split(path.delimiter).filter((tree) => tree !== "");
      const others: Other[] = await Promise.all(
        trees.map(async (tree, i) => ({ tree, key: `base${i}`, label: trees.length === 1 ? "another build" : `another build (${path.basename(tree)})`, build: await buildAt(tree) })),
      );
      const count = quick ? 3 : 25;
      // Against other builds, more rounds: their ratio is the goal, and the disk's noise is large.
      const rounds = others.length > 0 ? count * 4 : count;
      const ownBatch = await trio("batch", "");
      const [small, large, withCheckpoints] = ownBatch.rigs as [Rig, Rig, Rig];
      const whole = small.lastStep();
      handle = await open(path.join(dir, "baseline.bin"), "a");
      const h = handle;
      const sides: Record<string, Sampler> = { ...ownBatch.sides, one: () => durableWrites(h, whole, 5) };
      for (const other of others) Object.assign(sides, (await trio("batch", other.key, other.build)).sides);
      const s = await rotatingRounds(rounds, sides);
      await closeAll();
      // Without the disk, in a phase of their own (their reverts leave dirty pages that would slow the fsyncs above).
      // The other builds without the disk too: the loop's own cost, which the fdatasync's noise hides in the rows above.
      const noneSides: Record<string, Sampler> = {};
      for (const key of ["", ...others.map((other) => other.key)]) {
        const made = await trio("none", key, others.find((other) => other.key === key)?.build);
        for (const [side, turn] of Object.entries(made.sides)) noneSides[`${side}None`] = turn;
      }
      Object.assign(s, await rotatingRounds(rounds, noneSides));
      const one = `one awaited write + fdatasync of the step's ${whole.length} bytes`;
      const goal = (base: number[]) => Math.round(((median(base) + 0.5) / median(base)) * 100) / 100;
      const overhead = (ours: number[], rig: { syncsPerStep(): number }) =>
        `overhead beyond it ${(median(ours) - median(s.one!)).toFixed(2)} ms (goal 0.5 ms); ${rig.syncsPerStep().toFixed(2)} fdatasyncs per step, counted`;
      const loopOnly = { note: "informational: the loop's own cost, without the disk" };
      const againstOthers = others.flatMap(({ tree, key, label }) => [
        rowFromSamples(`Soul step, 100 messages of history (batch), against ${label}`, s.small!, `the same step of ${tree}`, s[`${key}small`]!, { goal: 1.05 }),
        rowFromSamples(`Soul step, ${many} messages of history (batch), against ${label}`, s.large!, `the same step of ${tree}`, s[`${key}large`]!, { goal: 1.05 }),
        rowFromSamples(`Soul step, ${dense} (batch), against ${label}`, s.dense!, `the same step of ${tree}`, s[`${key}dense`]!, { goal: 1.05 }),
        rowFromSamples(`Soul step, 100 messages of history (durability none), against ${label}`, s.smallNone!, `the same step of ${tree}`, s[`${key}smallNone`]!, loopOnly),
        rowFromSamples(`Soul step, ${many} messages of history (durability none), against ${label}`, s.largeNone!, `the same step of ${tree}`, s[`${key}largeNone`]!, loopOnly),
        rowFromSamples(`Soul step, ${dense} (durability none), against ${label}`, s.denseNone!, `the same step of ${tree}`, s[`${key}denseNone`]!, loopOnly),
      ]);
      const growth = (samples: string) => ({ note: `informational: what a step pays for the checkpoints before it${samples}` });
      return [
        ...againstOthers,
        rowFromSamples("Soul step, 100 messages of history (batch)", s.small!, one, s.one!, { goal: goal(s.one!), note: overhead(s.small!, small) }),
        rowFromSamples(`Soul step, ${many} messages of history (batch)`, s.large!, one, s.one!, { goal: goal(s.one!), note: overhead(s.large!, large) }),
        rowFromSamples(`Soul step, ${dense} (batch)`, s.dense!, one, s.one!, { goal: goal(s.one!), note: overhead(s.dense!, withCheckpoints) }),
        rowFromSamples(`Soul step at ${many} messages vs at 100 (batch)`, s.large!, "the step at 100 messages", s.small!, { goal: 1.5 }),
        rowFromSamples(`Soul step at ${many} messages vs at 100 (durability none)`, s.largeNone!, "the step at 100 messages (none)", s.smallNone!, {
          goal: 1.5,
          note: `informational: the loop without the disk, ${median(s.smallNone!).toFixed(3)} ms per step at 100 messages`,
        }),
        rowFromSamples(`Soul step at ${dense} vs without checkpoints (batch)`, s.dense!, `the step at ${many} messages without checkpoints`, s.large!, growth("")),
        rowFromSamples(`Soul step at ${dense} vs without checkpoints (durability none)`, s.denseNone!, `the step at ${many} messages without checkpoints (none)`, s.largeNone!, growth(", without the disk")),
      ];
    } finally {
      await handle?.close();
      await closeAll();
      await rm(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;
