/**
 * The agent the property tests interrupt: a seeded model (a script function
 * of the history, so any turn can be replayed or continued after a crash)
 * whose turns take 1 to 3 steps of 1 to 4 parallel tool calls, to tools
 * that honour cancellation (`work`), ignore it (`stubborn`), or wait for an
 * approval that a host answers a few ms later (`ask`), and, with big
 * outputs, return megabytes (`dump`); some turns end with a D-Mail
 * (`SendDMail`), so the context reverts (a file rotation) mid-turn.
 *
 * The property tests import the workload; run as a script it is the child
 * process of the SIGKILL test, on the built packages (`@kosong/soul`
 * resolves to dist):
 *
 *     node turn-child.ts <context.jsonl> <seed> <turns> [big]
 *
 * With "big" the tools return megabytes now and then; without, the context
 * window is small, so that the soul compacts every turn or two.
 * It restores the context, prints "ready", runs turns "turn 1" ..
 * "turn <turns>" printing "event <type>" per event ("event ToolResult
 * <output length>" for results), then prints "done".
 */
import { setTimeout as sleep } from "node:timers/promises";
import { defineTool, extractText, SimpleToolset, toolOk, type ChatProvider, type Message } from "@kosong/core";
import { ScriptedChatProvider, type ChatScript, type ScriptedChatProviderOptions } from "@kosong/core/testing";
import { Context, SendDMail, Soul, type SoulConfigInput } from "@kosong/soul";
import { checkpointMarkerId } from "@kosong/context/records";
import { z } from "zod";

/** A seeded pseudo-random generator in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The generator for one use of a seed (mixing the parts into one 32-bit seed). */
export function randomFor(...parts: number[]): () => number {
  let h = 0x811c9dc5;
  for (const part of parts) h = Math.imul(h ^ (part >>> 0), 0x01000193) ^ Math.floor(part / 2 ** 32);
  return seededRandom(h);
}

const toolNames = ["work", "stubborn", "ask"] as const;
/** With big outputs, `dump` too: results of 256 KiB to ~4 MB make the step's append a long write that a SIGKILL can cut. */
const toolNamesWithDump = [...toolNames, "dump"] as const;

/** The checkpoint id a visible CHECKPOINT message names, or null for any other message. */
function checkpointOf(message: Message): number | null {
  return message.role === "user" ? checkpointMarkerId(extractText(message)) : null;
}

/**
 * The model. In turn N (the last user message that is not a CHECKPOINT one
 * says "turn N") it takes a seeded number of steps, each calling tools in
 * parallel with call ids unique to the turn and step, and then answers "turn
 * N done". In half of the odd turns its last tool step also sends a D-Mail
 * to one of the last four checkpoints it sees; after a D-Mail (the last user message
 * is the D-Mail) it answers at once. Even turns never send one.
 */
export function plannedModel(seed: number, bigOutputs = false): ChatScript {
  const names = bigOutputs ? toolNamesWithDump : toolNames;
  return (history) => {
    const start = history.findLastIndex((m) => m.role === "user" && checkpointOf(m) === null);
    const turn = Number(/^turn (\d+)$/.exec(extractText(history[start]!))?.[1] ?? "0");
    const usage = `usage: input_other=${10 * history.length + 10} output=5`;
    if (turn === 0) return `text: read the D-Mail, going on\n${usage}`;
    const step = history.slice(start + 1).filter((m) => m.role === "assistant").length;
    const plan = randomFor(seed, turn);
    const steps = 1 + Math.floor(plan() * 3);
    if (step >= steps) return `text: turn ${turn} done\n${usage}`;
    const random = randomFor(seed, turn, step);
    const lines = [`text: turn ${turn}, step ${step + 1} of ${steps}: calling tools`, usage];
    const calls = 1 + Math.floor(random() * 4);
    for (let i = 0; i < calls; i++) {
      const name = names[Math.floor(random() * names.length)]!;
      const args = JSON.stringify({ ms: Math.floor(random() * 15) });
      lines.push(`tool_call: ${JSON.stringify({ id: `t${turn}s${step}c${i}`, name, arguments: args })}`);
    }
    const checkpoints = history.map(checkpointOf).filter((id) => id !== null).slice(-4);
    if (turn % 2 === 1 && step === steps - 1 && plan() < 0.5 && checkpoints.length > 0) {
      const args = JSON.stringify({ message: `turn ${turn} went wrong`, checkpoint_id: checkpoints[Math.floor(random() * checkpoints.length)] });
      lines.push(`tool_call: ${JSON.stringify({ id: `t${turn}s${step}dmail`, name: "SendDMail", arguments: args })}`);
    }
    return lines.join("\n");
  };
}

const delay = z.object({ ms: z.int().min(0) });

const work = defineTool({
  name: "work",
  description: "Works for ms milliseconds; stops when cancelled.",
  parameters: delay,
  async execute({ ms }, { signal }) {
    await sleep(ms, undefined, { signal });
    return toolOk(`worked ${ms} ms`);
  },
});

const stubborn = defineTool({
  name: "stubborn",
  description: "Works for ms milliseconds, cancelled or not.",
  parameters: delay,
  async execute({ ms }) {
    await sleep(ms);
    return toolOk(`insisted ${ms} ms`);
  },
});

const dump = defineTool({
  name: "dump",
  description: "Returns (ms + 1) * 256 KiB of text.",
  parameters: delay,
  execute: ({ ms }) => toolOk(`${ms}:`.padEnd((ms + 1) * 262_144, "log line ")),
});

const ask = defineTool({
  name: "ask",
  description: "Asks for approval, then returns.",
  parameters: delay,
  async execute({ ms }, { approval }) {
    const answer = await approval!.request("ask", `wait ${ms} ms`);
    return answer.approved ? toolOk("allowed") : answer.rejection;
  },
});

/** Options of {@link workloadSoul}. */
export interface WorkloadOptions {
  /** How the model streams (default: 12-character chunks, 1 ms apart). */
  streaming?: ScriptedChatProviderOptions;
  /** Wraps the scripted model (e.g. in a ChaosChatProvider). */
  wrap?: (model: ScriptedChatProvider) => ChatProvider;
  /** Let the model call `dump` (default false). */
  bigOutputs?: boolean;
  /** Loop settings (retries never wait). */
  config?: Omit<SoulConfigInput, "retry">;
}

/**
 * A soul over `context` running the planned model, streaming in small
 * delayed chunks, with a host that approves each request `ms` after it.
 */
export function workloadSoul(context: Context, seed: number, options: WorkloadOptions = {}): Soul {
  const model = plannedModel(seed, options.bigOutputs);
  const scripted = new ScriptedChatProvider(Array.from({ length: 10_000 }, () => model), options.streaming ?? { chunkSize: 12, delayMs: 1 });
  const soul = new Soul({
    agent: { name: "property", systemPrompt: "You are interrupted a lot.", toolset: new SimpleToolset([work, stubborn, ask, dump, SendDMail]) },
    provider: options.wrap?.(scripted) ?? scripted,
    context,
    config: { cancelGraceMs: 20, ...options.config, retry: { initialDelayMs: 0, maxDelayMs: 0, jitterMs: 0, maxRetryAfterMs: 0 } },
  });
  soul.approval.subscribe((event) => {
    if (event.type !== "ApprovalRequest") return;
    const { id, description } = event.payload;
    setTimeout(() => {
      if (soul.approval.pending().some((p) => p.id === id)) soul.approval.respond(id, "approve");
    }, Number(/\d+/.exec(description)?.[0] ?? 0));
  });
  return soul;
}

if (import.meta.main) {
  const [file, seedText, turnsText, big] = process.argv.slice(2);
  const context = new Context(file!);
  await context.restore();
  // Without big outputs, a small window: the default compaction runs every turn or two, and kills land in it too.
  const soul = workloadSoul(context, Number(seedText), big === "big" ? { bigOutputs: true } : { config: { maxContextSize: 300, reservedContextSize: 0 } });
  process.stdout.write("ready\n");
  for (let turn = 1; turn <= Number(turnsText); turn++) {
    for await (const event of soul.run(`turn ${turn}`)) {
      const size = event.type === "ToolResult" ? ` ${event.payload.return_value.output.length}` : "";
      process.stdout.write(`event ${event.type}${size}\n`);
    }
  }
  await context.close();
  process.stdout.write("done\n");
}
