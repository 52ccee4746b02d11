/**
 * Seeded random operations on a Context, checked after every operation
 * against a model: kimi-cli's algorithm applied to a plain list of JSON
 * records (append lines; `revert_to` cuts before the checkpoint's line;
 * `clear` empties; a rotation is a copy of the list), folded as kimi-cli's
 * `restore()` folds its file. The Context must show that fold, a fresh
 * Context on the same log must restore to it, and a context.jsonl must hold
 * exactly those records. The seed is printed; KOSONG_SEED replays one.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { assistantMessage, serializeMessage, toolCall, toolMessage, userMessage, type Message } from "@kosong/core";
import { CheckpointNotFoundError, type Context } from "@kosong/soul";
import { seededRandom } from "../compaction/helpers/random-history.js";
import { LOG_KINDS } from "./helpers/logs.js";

type Rec = { role: string; [key: string]: unknown };

/** kimi-cli's restore fold over records; pending counted as messages after the last usage (the test's estimator). */
function fold(records: readonly Rec[]) {
  const history: unknown[] = [];
  let tokenCount = 0;
  let usageAt = 0;
  let nCheckpoints = 0;
  let systemPrompt: string | null = null;
  const checkpoints: Array<{ id: number; label?: string; messageCount: number }> = [];
  for (const record of records) {
    if (record.role === "_system_prompt") systemPrompt = record.content as string;
    else if (record.role === "_usage") [tokenCount, usageAt] = [record.token_count as number, history.length];
    else if (record.role === "_checkpoint") {
      const id = record.id as number;
      checkpoints.push(record.label === undefined ? { id, messageCount: history.length } : { id, label: record.label as string, messageCount: history.length });
      nCheckpoints = id + 1;
    } else history.push(record);
  }
  return { history, tokenCount, tokenCountWithPending: tokenCount + history.length - usageAt, nCheckpoints, systemPrompt, checkpoints };
}

function view(context: Context) {
  return {
    history: context.history.map((m) => JSON.parse(serializeMessage(m)) as unknown),
    tokenCount: context.tokenCount,
    tokenCountWithPending: context.tokenCountWithPending,
    nCheckpoints: context.nCheckpoints,
    systemPrompt: context.systemPrompt,
    checkpoints: context.checkpoints,
  };
}

const SEEDS = process.env.KOSONG_SEED !== undefined ? [Number(process.env.KOSONG_SEED)] : [1, 2, 3];
const OPS = 120;

describe.each(LOG_KINDS)("Context on $name against kimi-cli's algorithm", (kind) => {
  it.each(SEEDS)("seed %i", async (seed) => {
    console.log(`context model test on ${kind.name}: seed ${seed} (replay with KOSONG_SEED=${seed})`);
    const next = seededRandom(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const setup = await kind.make({ estimateTokens: (messages) => messages.length });
    let context = setup.context;
    await context.restore();
    let records: Rec[] = [];
    const rotations = new Map<number, Rec[]>();
    let calls = 0;
    const json = (m: Message) => JSON.parse(serializeMessage(m)) as Rec;

    const ops: Array<[string, () => Promise<void>]> = [
      [
        "append",
        async () => {
          const batch = next() < 0.3 ? [assistantMessage("using a tool", [toolCall(`c${++calls}`, "Shell", { n: calls })]), toolMessage(`c${calls}`, "done")] : [pick([userMessage, assistantMessage])(`text ${next().toFixed(3)} ✓`)];
          await context.appendMessage(batch);
          records.push(...batch.map(json));
        },
      ],
      [
        "checkpoint",
        async () => {
          const label = next() < 0.3 ? pick(["turn", "edit", "😀"]) : undefined;
          const visible = next() < 0.5;
          const { id } = await context.checkpoint({ addUserMessage: visible, label });
          records.push(label === undefined ? { role: "_checkpoint", id } : { role: "_checkpoint", id, label });
          if (visible) records.push(json(userMessage(`<system>CHECKPOINT ${id}</system>`)));
        },
      ],
      [
        "usage",
        async () => {
          const count = Math.floor(next() * 10_000);
          await context.updateTokenCount(count);
          records.push({ role: "_usage", token_count: count });
        },
      ],
      [
        "revert",
        async () => {
          const marks = fold(records).checkpoints;
          const target = next() < 0.1 || marks.length === 0 ? 999 : pick(marks).id;
          const cut = records.findIndex((r) => r.role === "_checkpoint" && r.id === target);
          if (cut < 0) {
            await expect(context.revertTo(target)).rejects.toSatisfy((e: unknown) => CheckpointNotFoundError.isInstance(e));
            return;
          }
          const { rotation } = await context.revertTo(target);
          rotations.set(rotation.n, records);
          records = records.slice(0, cut);
        },
      ],
      [
        "revert to a label",
        async () => {
          const labelled = fold(records).checkpoints.filter((c) => c.label !== undefined);
          if (labelled.length === 0) return;
          const label = pick(labelled).label!;
          const cut = records.findLastIndex((r) => r.role === "_checkpoint" && r.label === label);
          const { rotation } = await context.revertTo(label);
          rotations.set(rotation.n, records);
          records = records.slice(0, cut);
        },
      ],
      [
        "clear",
        async () => {
          const rotation = await context.clear();
          rotations.set(rotation.n, records);
          records = [];
        },
      ],
      [
        "restore a rotation",
        async () => {
          if (rotations.size === 0) return;
          const n = pick([...rotations.keys()]);
          const { savedAs } = await context.restoreRotation(n);
          if (savedAs !== null) rotations.set(savedAs.n, records);
          records = [...rotations.get(n)!];
        },
      ],
      [
        "system prompt",
        async () => {
          const prompt = `prompt ${next().toFixed(2)}`;
          await context.writeSystemPrompt(prompt);
          const record = { role: "_system_prompt", content: prompt };
          if (records.length > 0 && fold(records).systemPrompt === null) records.unshift(record);
          else records.push(record);
        },
      ],
    ];
    const weights = [8, 4, 3, 2, 1, 1, 1, 1];
    const weighted = ops.flatMap((op, i) => Array<typeof op>(weights[i]!).fill(op));

    for (let i = 0; i < OPS; i += 1) {
      const [name, op] = pick(weighted);
      await op();
      expect(view(context), `after op ${i} (${name}), seed ${seed}`).toEqual(fold(records));
      if (i % 30 === 29 || i === OPS - 1) {
        context = await setup.reopen(context);
        await context.restore();
        expect(view(context), `restored after op ${i}, seed ${seed}`).toEqual(fold(records));
      }
    }
    if (kind.name === "context.jsonl") {
      const lines = (await readFile(context.location, "utf8")).split("\n").filter((l) => l !== "");
      expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(records);
    }
    await context.close();
  });
});
