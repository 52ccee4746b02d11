/**
 * The parent's step after many finished children: does a soul's per-step
 * cost grow with the number of child souls (`runSubagent`) it has run?
 *
 * Ours: a parent that first ran N children (10 parallel `Agent` calls per
 * step, each child on its own `context.jsonl`, answering at once), then
 * turns of `STEPS` steps each calling one instant tool. Baseline, same run,
 * interleaved: a parent with the same history shape, whose first turn made
 * N calls of the instant tool instead (no children). A step is timed from
 * one LLM call to the next (zero-latency scripted models, durability
 * "none": the loop's own cost); each round takes the median step of a turn
 * and reverts the turn. Goal: ratio ≤ 1.2. Quick mode: 20 children, 3 rounds.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { SimpleToolset, toolOk, type ToolCall, type ToolContext, type ToolHandleOptions, type ToolResult, type Toolset } from "@kosong/core";
import { JsonlContextFile } from "@kosong/context";
import { ScriptedChatProvider, type ChatScript } from "@kosong/core/testing";
import { Context, Soul } from "@kosong/soul";
import { runSubagent, subagentToolResult } from "@kosong/soul/subagent";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { median, rowFromSamples } from "../measure.ts";

const STEPS = 16;
const PER_STEP = 10;

/** `Agent` (a child on its own file, answering at once) and `echo` (instant), as a raw toolset. */
function toolset(dir: string): Toolset {
  let n = 0;
  const object = { type: "object", properties: { text: { type: "string" } } };
  return {
    tools: [
      { name: "Agent", description: "Runs a child.", parameters: object },
      { name: "echo", description: "Returns its text.", parameters: object },
    ],
    async handle(call: ToolCall, options: ToolHandleOptions = {}): Promise<ToolResult> {
      const text = String((JSON.parse(call.function.arguments ?? "{}") as { text?: string }).text);
      if (call.function.name === "echo") return { tool_call_id: call.id, return_value: toolOk(`echo: ${text}`) };
      const child = new Context(await JsonlContextFile.open(path.join(dir, `child-${n++}.jsonl`), { durability: "none" }));
      const context: ToolContext = { ...options.context, toolCallId: call.id, signal: options.signal ?? new AbortController().signal };
      const result = await runSubagent(context, text, {
        agent: { name: "child", systemPrompt: "You are a child.", toolset: new SimpleToolset([]) },
        provider: new ScriptedChatProvider(["text: done\nusage: input_other=100 output=5"]),
        context: child,
        config: { maxContextSize: 100_000 },
      });
      await child.close();
      return { tool_call_id: call.id, return_value: subagentToolResult(result) };
    },
  };
}

const calls = (name: string, from: number, count: number, args: (i: number) => object) =>
  Array.from({ length: count }, (_, i) => `tool_call: ${JSON.stringify({ id: `c${from + i}`, name, arguments: JSON.stringify(args(from + i)) })}`).join("\n");

/** A parent whose first turn made `n` calls of `tool` (`Agent`: n finished children), and a timed turn of STEPS echo steps. */
async function rig(dir: string, n: number, tool: "Agent" | "echo") {
  const log = await JsonlContextFile.open(path.join(dir, `parent-${tool}.jsonl`), { durability: "none" });
  const context = new Context(log);
  await context.restore();
  const agent = { name: "bench", systemPrompt: "You are a benchmark agent.", toolset: toolset(dir) };
  const config = { maxContextSize: 10_000_000, maxStepsPerTurn: 1_000 };
  const warm: ChatScript[] = [];
  for (let from = 0; from < n; from += PER_STEP) warm.push(`usage: input_other=1000 output=5\n${calls(tool, from, Math.min(PER_STEP, n - from), (i) => ({ text: `task ${i}` }))}`);
  warm.push("text: warmed up");
  const first = new Soul({ agent, provider: new ScriptedChatProvider(warm), context, config });
  const warmed = await first.run("warm up").result;
  first.release();
  if (warmed.stopReason !== "no_tool_calls") throw new Error(`warm-up ended with ${warmed.stopReason}: ${warmed.error?.message ?? ""}`);
  const gaps: number[] = [];
  let last: number | null = null;
  let k = 0;
  const model: ChatScript = () => {
    const now = performance.now();
    if (last !== null) gaps.push(now - last);
    last = now;
    k++;
    return `text: step ${k}\nusage: input_other=2000 output=5\n${calls("echo", 100_000 + k, 1, () => ({ text: `item ${k}` }))}`;
  };
  const turn = async (): Promise<number> => {
    const soul = new Soul({ agent, provider: new ScriptedChatProvider(Array.from({ length: STEPS }, () => model)), context, config: { ...config, maxStepsPerTurn: STEPS } });
    gaps.length = 0;
    last = null;
    const checkpoint = context.nCheckpoints;
    const result = await soul.run("next items").result;
    soul.release();
    if (result.stopReason !== "max_steps") throw new Error(`the turn ended with ${result.stopReason}: ${result.error?.message ?? ""}`);
    const { rotation } = await context.revertTo(checkpoint);
    await rm(rotation.location, { force: true });
    return median(gaps);
  };
  return { context, turn };
}

const benchmark: Benchmark = {
  name: "soul-subagents",
  async run({ quick }): Promise<BenchRow[]> {
    const n = quick ? 20 : 200;
    const dir = await mkdtemp(path.join(os.tmpdir(), "kosong-bench-subagents-"));
    const contexts: Context[] = [];
    try {
      const withChildren = await rig(path.join(dir), n, "Agent");
      const without = await rig(path.join(dir), n, "echo");
      contexts.push(withChildren.context, without.context);
      const ours: number[] = [];
      const base: number[] = [];
      const rounds = quick ? 3 : 15;
      for (let round = 0; round < rounds; round++) {
        if (round % 2 === 0) {
          ours.push(await withChildren.turn());
          base.push(await without.turn());
        } else {
          base.push(await without.turn());
          ours.push(await withChildren.turn());
        }
      }
      return [
        rowFromSamples(`parent step after ${n} finished children`, ours, `parent step after ${n} instant tool calls, no children`, base, {
          goal: 1.2,
          note: `median of ${STEPS} steps per round, ${rounds} rounds; children ran ${PER_STEP} per step, each on its own context.jsonl`,
        }),
      ];
    } finally {
      for (const context of contexts) await context.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
export default benchmark;
