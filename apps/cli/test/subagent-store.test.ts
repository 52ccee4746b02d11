/**
 * The children's records after a revert of the parent: a child whose every
 * turn came after the revert's checkpoint is detached (its conversation
 * kept as a rotation); a resumed child whose first turn came before keeps
 * that turn, its later ones taken back. Running children are left alone.
 */
import { Context } from "@kosong/soul";
import { userMessage } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { SubagentStore } from "../src/subagents/subagent-store.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

/** A child record with one turn per parent checkpoint given, and its conversation (a labelled checkpoint and two messages per turn). */
async function child(store: SubagentStore, checkpoints: number[]) {
  const record = await store.create({ id: store.newId(), subagent_type: "coder", description: "task", parent_session: "s", parent_tool_call_id: "c", parent_checkpoint: 0, model: "m", background: false, status: "finished" });
  const context = new Context(store.contextFile(record.id));
  await context.restore();
  for (const [i, checkpoint] of checkpoints.entries()) {
    const label = `s/call_${checkpoint}`;
    await context.commit({ checkpoint: { label }, messages: [userMessage(`prompt ${i}`), { role: "assistant", content: [{ type: "text", text: `answer ${i}` }] }] });
    record.turns.push({ parent_tool_call_id: `call_${checkpoint}`, parent_checkpoint: checkpoint, label });
  }
  await context.close();
  await store.save(record);
  return record;
}

async function history(store: SubagentStore, id: string): Promise<number> {
  const context = new Context(store.contextFile(id));
  await context.restore();
  const n = context.history.length;
  await context.close();
  return n;
}

describe("children after the parent's revert", () => {
  it("detaches a child whose turns all came after the checkpoint, trims a resumed one, leaves earlier and running ones", async () => {
    const store = new SubagentStore(await tempDir());
    const late = await child(store, [5]);
    const resumed = await child(store, [2, 6]);
    const early = await child(store, [1]);
    const running = await child(store, [7]);
    const changed = await store.detachFrom(4, new Set([running.id]));
    expect(changed.map((r) => r.id).sort()).toEqual([late.id, resumed.id].sort());
    expect(await store.get(late.id)).toMatchObject({ status: "detached", turns: [], detached_turns: [{ parent_checkpoint: 5 }] });
    expect(await history(store, late.id)).toBe(0);
    expect(await store.get(resumed.id)).toMatchObject({ status: "finished", turns: [{ parent_checkpoint: 2 }], detached_turns: [{ parent_checkpoint: 6 }] });
    expect(await history(store, resumed.id)).toBe(2);
    expect(await history(store, early.id)).toBe(2);
    expect(await history(store, running.id)).toBe(2);
    // The detached conversation is kept: its rotation holds both messages.
    const context = new Context(store.contextFile(late.id));
    await context.restoreRotation((await store.get(late.id))!.detached_rotation!);
    expect(context.history).toHaveLength(2);
    await context.close();
  });

  it("marks a child a crash cut as interrupted, saying how much of its conversation was kept", async () => {
    const store = new SubagentStore(await tempDir());
    const cut = await child(store, [3]);
    await store.save({ ...cut, status: "running" });
    const found = await store.recoverCut();
    expect(found.map((f) => [f.record.id, f.messages, f.interruptedCalls, f.damagedLines])).toEqual([[cut.id, 2, 0, 0]]);
    expect((await store.get(cut.id))!.status).toBe("interrupted");
    expect(await store.recoverCut()).toEqual([]);
  });

  it("refuses an id that is not of the store's shape (a model's resume argument names no folder outside it)", async () => {
    const store = new SubagentStore(await tempDir());
    expect(await store.get("../../etc")).toBeNull();
    expect(() => store.contextFile("../x")).toThrow(RangeError);
  });
});
