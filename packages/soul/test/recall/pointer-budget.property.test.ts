/**
 * Property: recall pointers never make a compaction grow. Over random
 * histories (tool calls naming hostile paths and commands, errors, long
 * and short outputs) and random strategy outputs (a random subset of the
 * history kept, with or without a summary), the context after
 * `soul.compact()` never holds more estimated tokens than before when the
 * strategy's output did not; the notice has no control characters but its
 * line breaks; and every pointer it names brings its range back.
 */
import { extractText, type Message } from "@kosong/core";
import { MemoryContextLog } from "@kosong/context";
import { Context, type Compaction } from "@kosong/soul";
import { checkCompaction } from "@kosong/soul/compaction";
import { ContextRecall, isPointerNotice, Recall } from "@kosong/soul/recall";
import { estimateTokens } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";
import { randomFor } from "../children/turn-child.js";
import { propertySeed, trialCount } from "../property/helpers/property.js";
import { collect, testSoul } from "../soul/helpers.js";

const words = ["alpha", "beta", "TypeError: x is undefined", "FAILED test_login", "\u001b[31mred\u001b[0m", "line\u2028sep", "../../etc/passwd", "src/app.ts", "日本語", "\u202eevil"];

function randomHistory(random: () => number): Message[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const text = (max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, () => pick(words)).join(" ");
  const history: Message[] = [];
  const turns = 1 + Math.floor(random() * 8);
  for (let t = 0; t < turns; t++) {
    history.push({ role: "user", content: [{ type: "text", text: text(20) }] });
    const calls = Math.floor(random() * 3);
    for (let c = 0; c < calls; c++) {
      const id = `c${t}_${c}`;
      const args = random() < 0.5 ? { path: `${pick(words)}/${pick(words)}` } : { command: text(6) };
      history.push({ role: "assistant", content: [], tool_calls: [{ type: "function", id, function: { name: random() < 0.5 ? "ReadFile" : "Shell", arguments: JSON.stringify(args) } }] });
      history.push({ role: "tool", tool_call_id: id, content: [{ type: "text", text: text(random() < 0.2 ? 2000 : 30) }] });
    }
    history.push({ role: "assistant", content: [{ type: "text", text: text(40) }] });
  }
  return history;
}

/** A random subset of the history (the last message always), sometimes after a summary. */
function randomOutput(history: readonly Message[], random: () => number): Message[] {
  const kept = history.filter((_, i) => i === history.length - 1 || random() < 0.4);
  const summary: Message[] = random() < 0.5 ? [{ role: "user", content: [{ type: "text", text: `summary ${"x".repeat(Math.floor(random() * 400))}` }] }] : [];
  return [...summary, ...kept];
}

describe("recall pointers within the room a compaction made", () => {
  it("never grow the context, carry no control characters, and every pointer resolves", async () => {
    const seed = propertySeed("pointer-budget");
    const trials = trialCount("POINTER_BUDGET_TRIALS", 150);
    for (let trial = 0; trial < trials; trial++) {
      const random = randomFor(seed, trial);
      const history = randomHistory(random);
      const log = new MemoryContextLog();
      const seeded = new Context(log);
      await seeded.restore();
      await seeded.appendMessage(history);
      const output = randomOutput(history, random);
      const strategy: Compaction = { name: "random-subset", compact: async () => ({ messages: output, usage: null }) };
      const { soul, context } = await testSoul({ log, tools: [Recall], compaction: strategy, scripts: [] });
      const before = estimateTokens(context.history);
      // What the soul writes before the notice: the output as checkCompaction repairs it.
      const outputSize = estimateTokens(checkCompaction({ messages: output, usage: null }).result.messages);
      await collect(soul.compact());
      const after = context.history;
      const where = `seed ${seed}, trial ${trial}`;
      if (outputSize <= before) expect(estimateTokens(after), where).toBeLessThanOrEqual(before);
      const notice = after.find(isPointerNotice);
      if (notice === undefined) continue;
      expect(extractText(notice).replace(/\n/g, ""), where).not.toMatch(/[\p{Cc}\p{Cf}\u2028\u2029]/u);
      const recall = new ContextRecall(context);
      for (const [pointer] of extractText(notice).matchAll(/\br\d+:\d+(?:-\d+)?\b/g)) await expect(recall.range(pointer), where).resolves.toMatchObject({ source: pointer });
    }
  });
});
