/**
 * `Context.checkpoints` is the caller's own list: a list (and each checkpoint
 * in it) a caller got never changes under it, whatever the context does next
 * (steps, reverts, a clear, a restored rotation), while the context's steps
 * add their checkpoints without copying the whole list each time.
 */
import { describe, expect, it } from "vitest";
import { assistantMessage, toolCall, toolMessage, userMessage } from "@kosong/core";
import { MemoryContextLog } from "@kosong/context";
import { Context, type ContextCheckpoint } from "@kosong/soul";

const stepMessages = (n: number) => [assistantMessage(`step ${n}`, [toolCall(`c${n}`, "Shell", { command: "ls" })]), toolMessage(`c${n}`, "a.txt")];

/** What a kept list looked like when it was read. */
function kept(list: readonly ContextCheckpoint[]): { list: readonly ContextCheckpoint[]; copy: ContextCheckpoint[] } {
  return { list, copy: structuredClone([...list]) };
}

describe("Context.checkpoints as the caller's own list", () => {
  it("a list a caller got keeps its checkpoints through later steps, a revert, a clear and a restored rotation", async () => {
    const context = new Context(new MemoryContextLog());
    await context.restore();
    await context.commit({ checkpoint: true, messages: [userMessage("go")] });
    const seen = [kept(context.checkpoints)];
    // Steps that each make a checkpoint (as the loop's do), with reads in between and without.
    for (let n = 1; n <= 3; n++) await context.commit({ checkpoint: true, tokenCount: 10 * n, messages: stepMessages(n) });
    seen.push(kept(context.checkpoints));
    for (let n = 4; n <= 6; n++) {
      await context.commit({ checkpoint: { label: `step ${n}` }, tokenCount: 10 * n, messages: stepMessages(n) });
      seen.push(kept(context.checkpoints));
    }
    const full = kept(context.checkpoints);
    const { rotation } = await context.revertTo(3, { then: { checkpoint: true, messages: stepMessages(7) } });
    const reverted = kept(context.checkpoints);
    await context.commit({ checkpoint: true, messages: stepMessages(8) });
    await context.clear({ then: { checkpoint: true, messages: [userMessage("again")] } });
    const cleared = kept(context.checkpoints);
    await context.commit({ checkpoint: true, messages: stepMessages(9) });
    await context.restoreRotation(rotation.n);
    await context.commit({ checkpoint: true, messages: stepMessages(10) });

    for (const { list, copy } of [...seen, full, reverted, cleared]) expect(list).toEqual(copy);
    expect(seen.map(({ list }) => list.length)).toEqual([1, 4, 5, 6, 7]);
    expect(full.list.map((c) => c.id)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(reverted.list.map((c) => c.id)).toEqual([0, 1, 2, 3]);
    expect(cleared.list).toEqual([{ id: 0, messageCount: 0 }]);
    // The context itself has every checkpoint its last branch made, in order.
    expect(context.checkpoints.map((c) => c.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(context.checkpoints.at(-1)).toEqual({ id: 7, messageCount: 13 });
  });

  it("a checkpoint a caller changed changes nothing in the context", async () => {
    const context = new Context(new MemoryContextLog());
    await context.restore();
    await context.commit({ checkpoint: { label: "start" }, messages: [userMessage("go")] });
    const list = context.checkpoints;
    list[0]!.messageCount = 99;
    list.push({ id: 42, messageCount: 0 });
    await context.commit({ checkpoint: true, messages: stepMessages(1) });

    expect(context.checkpoints).toEqual([
      { id: 0, label: "start", messageCount: 0 },
      { id: 1, messageCount: 1 },
    ]);
    expect(context.findCheckpoint(0)).toEqual({ id: 0, label: "start", messageCount: 0 });
    expect(context.findCheckpoint(42)).toBeNull();
  });
});
