/**
 * The soul's branch tree on PostgreSQL: reverts, a D-Mail, a side branch
 * and a restore store their notes in the rotations' rows, and a session
 * reopened (as another instance would) lists the same tree; the side branch
 * leaves the current log's records as they were.
 */
import { assistantMessage, userMessage } from "@kosong/core";
import { Context } from "@kosong/soul";
import type { ContextBranch } from "@kosong/soul/conversation";
import { describe, expect, it } from "vitest";
import { sessionId, testStore } from "./helpers/store.js";

const store = await testStore();

const shape = ({ rotation, parent, kind, checkpoint, sharedMessages, firstPrompt }: ContextBranch) => ({ rotation, parent, kind, checkpoint, sharedMessages, firstPrompt });

describe("Context.branches on a PostgresContextLog", () => {
  it("lists the tree from the rotations' notes, the same after a reopen; addBranch leaves the current records alone", async () => {
    const id = sessionId();
    const context = new Context(await store.openLog(id));
    await context.restore();
    for (const n of [0, 1, 2]) await context.commit({ checkpoint: true, messages: [userMessage(`prompt ${n}`), assistantMessage(`answer ${n}`)] });
    await context.revertTo(2);
    await context.revertTo(1, { kind: "dmail" });
    const current = context.history.slice();
    await context.addBranch([userMessage("by the way?"), assistantMessage("an aside")]);
    expect(context.history).toEqual(current);
    const tree = (await context.branches()).map(shape);
    expect(tree).toEqual([
      { rotation: null, parent: undefined, kind: "current", checkpoint: null, sharedMessages: 0, firstPrompt: "prompt 0" },
      { rotation: 1, parent: 2, kind: "revert", checkpoint: 2, sharedMessages: 4, firstPrompt: "prompt 2" },
      { rotation: 2, parent: null, kind: "dmail", checkpoint: 1, sharedMessages: 2, firstPrompt: "prompt 1" },
      { rotation: 3, parent: null, kind: "btw", checkpoint: 0, sharedMessages: 2, firstPrompt: "by the way?" },
    ]);
    await context.close();

    const again = new Context(await store.openLog(id));
    await again.restore();
    expect(again.history).toEqual(current);
    expect((await again.branches()).map(shape)).toEqual(tree);
    await again.restoreRotation(3);
    expect(again.history.at(-1)).toEqual(assistantMessage("an aside"));
    expect((await again.branches()).map(shape).at(-1)).toEqual({ rotation: 4, parent: null, kind: "restore", checkpoint: 0, sharedMessages: 2, firstPrompt: null });
    await again.close();
  });
});
