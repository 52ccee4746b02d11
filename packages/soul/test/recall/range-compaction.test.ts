/**
 * Range compaction: `soul.compact({ from, to })` gives the strategy only the
 * messages between two checkpoints; those before and after stay verbatim.
 * A part the strategy keeps whole (under its budget) is replaced by an
 * extractive summary; an unknown checkpoint changes nothing.
 */
import { CheckpointNotFoundError, SoulError } from "@kosong/soul";
import { isPointerNotice, Recall } from "@kosong/soul/recall";
import { estimateTokens } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";
import { collect, outline, testSoul } from "../soul/helpers.js";
import { keepLast } from "./helpers.js";

async function threeTurns(strategy: ReturnType<typeof keepLast>["strategy"], withRecall = false, padding = "") {
  const made = await testSoul({
    tools: withRecall ? [Recall] : [],
    compaction: strategy,
    scripts: ["text: answer one", `text: answer two${padding}`, "text: answer three"],
  });
  for (const task of ["first task", "second task", "third task"]) await collect(made.soul.run(task));
  return made;
}

describe("range compaction", () => {
  it("compacts only the messages from checkpoint `from` up to checkpoint `to`", async () => {
    const { strategy, seen } = keepLast(1);
    const { soul, context } = await threeTurns(strategy);
    // Each turn has its checkpoint (0, 2, 4) and its step's (1, 3, 5).
    expect(context.checkpoints.map((c) => [c.id, c.messageCount])).toEqual([[0, 0], [1, 1], [2, 2], [3, 3], [4, 4], [5, 5]]);

    await collect(soul.compact({ from: 2, to: 4 }));
    expect(seen.map((h) => outline(h))).toEqual([["user:second task", "assistant:answer two"]]);
    expect(outline(context)).toEqual(["user:first task", "assistant:answer one", "assistant:answer two", "user:third task", "assistant:answer three"]);
  });

  it("compacts from a checkpoint to the end, leaving pointers to the range with Recall", async () => {
    const { strategy, seen } = keepLast(1);
    const { soul, context } = await threeTurns(strategy, true, " with details".repeat(40));
    await collect(soul.compact({ from: 2, instruction: "keep the answers" }));
    expect(seen.map((h) => h.length)).toEqual([4]);
    expect(outline(context).slice(0, 3)).toEqual(["user:first task", "assistant:answer one", "assistant:answer three"]);
    expect(isPointerNotice(context.history.at(-1)!)).toBe(true);
  });

  it("replaces a range the strategy keeps whole with an extractive summary, and says so", async () => {
    const whole = { name: "keep-all", compact: async (history: readonly never[]) => ({ messages: [...history], usage: null }) };
    const { soul, context } = await threeTurns(whole as never, false, " with details".repeat(40));
    const { result } = await collect(soul.compact({ from: 2, to: 4 }));
    expect(result.details?.notes).toContain("The strategy kept the range whole: an extractive summary replaced it.");
    const lines = outline(context);
    expect(lines.slice(0, 2)).toEqual(["user:first task", "assistant:answer one"]);
    expect(lines[2]).toContain("second task");
    expect(lines.slice(3)).toEqual(["user:third task", "assistant:answer three"]);
  });

  it("never grows the context: a range too short for its summary to be smaller stays as it is, and says so", async () => {
    const whole = { name: "keep-all", compact: async (history: readonly never[]) => ({ messages: [...history], usage: null }) };
    const { soul, context } = await threeTurns(whole as never);
    const before = outline(context);
    const tokens = estimateTokens(context.history);
    const { result } = await collect(soul.compact({ from: 2, to: 4 }));
    expect(estimateTokens(context.history)).toBeLessThanOrEqual(tokens);
    expect(outline(context)).toEqual(before);
    expect(result.details?.notes.join("\n")).toMatch(/range is too short/);
  });

  it("never grows the context for any range, with a strategy that keeps it whole or one that cuts it, and with Recall's pointers", async () => {
    const whole = { name: "keep-all", compact: async (history: readonly never[]) => ({ messages: [...history], usage: null }) };
    const lengths = ["", " with details".repeat(3), " with details".repeat(40)];
    for (const [name, strategy] of [["keep-all", () => whole as never], ["keep-last", () => keepLast(1).strategy]] as const) {
      for (const padding of lengths) {
        for (const withRecall of [false, true]) {
          for (const [from, to] of [[0, 2], [0, 4], [2, 4], [1, 5], [3, 5], [0, undefined], [2, undefined], [4, undefined], [5, undefined]] as const) {
            const { soul, context } = await threeTurns(strategy(), withRecall, padding);
            const tokens = estimateTokens(context.history);
            await collect(soul.compact(to === undefined ? { from } : { from, to }));
            expect(estimateTokens(context.history), `${name}, padding ${padding.length}, recall ${withRecall}, ${from}-${to}`).toBeLessThanOrEqual(tokens);
          }
        }
      }
    }
  });

  it("refuses an unknown checkpoint or an empty range and changes nothing", async () => {
    const { soul, context } = await threeTurns(keepLast(1).strategy);
    const before = outline(context);
    expect(() => soul.compact({ from: 7 })).toThrow(CheckpointNotFoundError);
    expect(() => soul.compact({ from: 4, to: 2 })).toThrow(SoulError);
    expect(outline(context)).toEqual(before);
  });
});
