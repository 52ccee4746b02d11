/**
 * Chaos soak of the Soul loop: 100 turns (quick: 20) of a scripted model
 * whose turns take 1 to 3 steps of 1 to 3 parallel tool calls, behind a
 * `ChaosChatProvider` failing 30 % of the calls (429s, 5xx, 529s, timeouts,
 * connection resets mid-stream, empty responses), on a real `context.jsonl`.
 * Baseline, same run, interleaved: the same turns without faults.
 *
 * The benchmark fails (throws) unless every turn of the chaotic run ends
 * normally and its file is byte for byte the fault-free run's: the ratio is
 * then the price of surviving the faults (the failed attempts and their
 * retries; retries do not wait here). `corrupt_tool_call` is left out: it is
 * a model sending broken arguments, not a failed call, and rightly changes
 * the conversation. Durability "none" (no fsync), so that the rows measure
 * the loop rather than the disk; 12 retries per step, so that a run of
 * failures (0.3^13 per step) does not end a turn.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { extractText, type ChatProvider } from "@kosong/core";
import { ChaosChatProvider, ScriptedChatProvider, type ChatScript, type ChaosFaultKind } from "@kosong/core/testing";
import { Context, Soul } from "@kosong/soul";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { compare, toRow } from "../measure.ts";
import { echoToolset } from "./soul-step.ts";

const failures: ChaosFaultKind[] = ["rate_limit", "server_error", "overloaded", "timeout", "connection_reset", "empty_response"];

/** Turn N (its input says "turn N"): 1 + N % 3 steps, each calling `echo` 1 + (N + step) % 3 times, then an answer. */
const model: ChatScript = (history) => {
  const start = history.findLastIndex((m) => m.role === "user");
  const turn = Number(/\d+/.exec(extractText(history[start]!))?.[0] ?? 0);
  const step = history.slice(start + 1).filter((m) => m.role === "assistant").length;
  const usage = `usage: input_other=${100 + 40 * history.length} output=20`;
  if (step >= 1 + (turn % 3)) return `text: Turn ${turn} is done: every step went through.\n${usage}`;
  const lines = [`text: Turn ${turn}, step ${step + 1}: looking at a few things in parallel.`, usage];
  for (let i = 0; i <= (turn + step) % 3; i++) {
    lines.push(`tool_call: ${JSON.stringify({ id: `t${turn}s${step}c${i}`, name: "echo", arguments: JSON.stringify({ text: `item ${i} of step ${step}` }) })}`);
  }
  return lines.join("\n");
};

/** Runs `turns` turns on a new file in `dir`; throws unless each ends normally. Returns the file's bytes and the calls and faults. */
async function soak(dir: string, turns: number, chaosSeed: number | null): Promise<{ bytes: Buffer; calls: number; faults: number }> {
  const file = path.join(dir, `${chaosSeed === null ? "clean" : "chaos"}.jsonl`);
  await rm(file, { force: true });
  const context = new Context(file, { file: { durability: "none" } });
  await context.restore();
  const scripted = new ScriptedChatProvider(Array.from({ length: turns * 8 }, () => model), { chunkSize: 16 });
  const chaos = chaosSeed === null ? null : new ChaosChatProvider(scripted, { seed: chaosSeed, errorProbability: 0.3, kinds: failures, retryAfterMs: 0 });
  const provider: ChatProvider = chaos ?? scripted;
  const soul = new Soul({
    agent: { name: "soak", systemPrompt: "You are soaked in chaos.", toolset: echoToolset() },
    provider,
    context,
    config: { maxRetriesPerStep: 12, retry: { initialDelayMs: 0, maxDelayMs: 0, jitterMs: 0, maxRetryAfterMs: 0 } },
  });
  for (let turn = 1; turn <= turns; turn++) {
    const result = await soul.run(`turn ${turn}`).result;
    if (result.stopReason !== "no_tool_calls") throw new Error(`turn ${turn} ended with ${result.stopReason}: ${result.error?.message ?? ""}`);
  }
  await context.close();
  return { bytes: await readFile(file), calls: chaos?.calls ?? scripted.calls.length, faults: chaos?.faults.length ?? 0 };
}

const benchmark: Benchmark = {
  name: "soul-chaos",
  async run({ quick }): Promise<BenchRow[]> {
    const turns = quick ? 20 : 100;
    const dir = await mkdtemp(path.join(os.tmpdir(), "kosong-bench-chaos-"));
    try {
      let round = 0;
      let chaotic: Awaited<ReturnType<typeof soak>> | null = null;
      let clean: Awaited<ReturnType<typeof soak>> | null = null;
      const check = () => {
        if (chaotic !== null && clean !== null && !chaotic.bytes.equals(clean.bytes)) throw new Error(`round ${round}: the chaotic run's context differs from the fault-free run's`);
      };
      const result = await compare(
        async () => {
          chaotic = await soak(dir, turns, 20_261_123 + round++);
          check();
        },
        async () => {
          clean = await soak(dir, turns, null);
          check();
        },
        quick ? { warmup: 0, rounds: 2 } : { warmup: 1, rounds: 5 },
      );
      const last = chaotic as Awaited<ReturnType<typeof soak>> | null;
      const faults = last === null ? "" : ` (last run: ${last.faults} faults in ${last.calls} calls)`;
      return [
        toRow(`Soul: ${turns} turns with parallel tools, 30 % of the calls failing`, "the same turns without faults", result, {
          note: `informational: the price of the failed attempts and their retries${faults}; retries do not wait, but each still goes through a zero-delay timer (about one event-loop tick, 1-2 ms on a loaded machine), which dominates here; the run throws unless every turn completes and the file equals the fault-free one byte for byte`,
        }),
      ];
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;
