/**
 * `Context.history` is a snapshot: an array a caller got never changes under
 * it, whatever the context does next (steps, reverts, a soul's turn), while
 * the context's steps do not copy the whole conversation each time; and
 * `historyLength`, its length without a snapshot.
 */
import { describe, expect, it } from "vitest";
import { assistantMessage, toolCall, toolMessage, userMessage, type Message } from "@kosong/core";
import { MemoryContextLog } from "@kosong/context";
import { Context } from "@kosong/soul";
import { call, collect, script, testSoul } from "../soul/helpers.js";

const stepMessages = (n: number) => [assistantMessage(`step ${n}`, [toolCall(`c${n}`, "Shell", { command: "ls" })]), toolMessage(`c${n}`, "a.txt")];

/** What a kept history looked like when it was read: its length and its messages. */
function kept(history: readonly Message[]): { history: readonly Message[]; copy: Message[] } {
  return { history, copy: history.slice() };
}

describe("Context.history as a snapshot", () => {
  it("an array a caller got keeps its messages through later steps, read or not in between", async () => {
    const context = new Context(new MemoryContextLog());
    await context.restore();
    await context.commit({ checkpoint: true, messages: [userMessage("go")] });
    const first = kept(context.history);
    // Steps nobody reads in between, then one read, then more steps.
    for (let n = 1; n <= 3; n++) await context.commit({ checkpoint: true, tokenCount: 10 * n, messages: stepMessages(n) });
    const second = kept(context.history);
    for (let n = 4; n <= 6; n++) await context.commit({ checkpoint: true, tokenCount: 10 * n, messages: stepMessages(n) });
    const third = kept(context.history);
    await context.revertTo(5);
    await context.commit({ checkpoint: true, messages: stepMessages(7) });

    for (const { history, copy } of [first, second, third]) expect(history).toEqual(copy);
    expect(first.history).toHaveLength(1);
    expect(second.history).toHaveLength(7);
    expect(third.history).toHaveLength(13);
    // The context itself has every step it took, and its own later snapshots agree with the earlier ones.
    expect(context.history).toHaveLength(11);
    expect(context.history.slice(0, 7)).toEqual(second.copy);
    expect(context.history.at(-2)).toEqual(stepMessages(7)[0]);
  });

  it("historyLength is the history's length through steps, a revert and a clear", async () => {
    const context = new Context(new MemoryContextLog());
    await context.restore();
    const lengths: [number, number][] = [];
    const note = () => lengths.push([context.historyLength, context.history.length]);
    note();
    await context.commit({ checkpoint: true, messages: [userMessage("go")] });
    note();
    for (let n = 1; n <= 3; n++) {
      await context.commit({ checkpoint: true, tokenCount: 10 * n, messages: stepMessages(n) });
      note();
    }
    await context.revertTo(2);
    note();
    await context.clear({ then: { messages: [userMessage("again")] } });
    note();

    expect(lengths).toEqual([
      [0, 0],
      [1, 1],
      [3, 3],
      [5, 5],
      [7, 7],
      [3, 3],
      [1, 1],
    ]);
  });

  it("a host keeping the history it reads during a soul's turn sees each one unchanged after the turn", async () => {
    const { soul, context } = await testSoul({
      scripts: [script("text: one", call("a1", "echo")), script("text: two", call("a2", "echo")), "text: done", "text: again"],
    });
    const seen: { history: readonly Message[]; copy: Message[] }[] = [];
    const turn = soul.run("start");
    for await (const event of turn) if (event.type === "StepBegin" || event.type === "StatusUpdate") seen.push(kept(context.history));
    await turn.result;
    const turnTwo = await collect(soul.run("again"));
    expect(turnTwo.result.stopReason).toBe("no_tool_calls");

    expect(seen.length).toBeGreaterThan(2);
    for (const { history, copy } of seen) expect(history).toEqual(copy);
    expect(context.history.length).toBeGreaterThan(seen.at(-1)!.copy.length);
  });
});
