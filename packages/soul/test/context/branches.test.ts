/**
 * Context.branches(): reverts, D-Mails, clears, restores and side branches
 * leave rotations that list as a tree (the branch each left, at which
 * checkpoint, what made it, its first prompt), from the rotations' notes,
 * on every log kind and after a reopen; addBranch leaves the current
 * conversation as it is, byte for byte.
 */
import { copyFile, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assistantMessage, userMessage } from "@kosong/core";
import { Context } from "@kosong/soul";
import type { ContextBranch } from "@kosong/soul/conversation";
import { LOG_KINDS } from "./helpers/logs.js";
import { runReadmeBlock } from "./helpers/readme-block.js";
import { tempDir } from "@kosong/test-support";

/** Three turns: checkpoint n, "prompt n", "answer n". */
async function threeTurns(context: Context): Promise<void> {
  for (const n of [0, 1, 2]) await context.commit({ checkpoint: true, messages: [userMessage(`prompt ${n}`), assistantMessage(`answer ${n}`)] });
}

/** What a test compares of a branch. */
const shape = ({ rotation, parent, kind, checkpoint, sharedMessages, messages, firstPrompt }: ContextBranch) => ({ rotation, parent, kind, checkpoint, sharedMessages, messages, firstPrompt });

describe.each(LOG_KINDS)("Context.branches on $name", (kind) => {
  it("lists the current branch alone before any rotation", async () => {
    const { context } = await kind.make();
    await threeTurns(context);
    expect((await context.branches()).map(shape)).toEqual([
      { rotation: null, parent: undefined, kind: "current", checkpoint: null, sharedMessages: 0, messages: 6, firstPrompt: "prompt 0" },
    ]);
    await context.close();
  });

  it("builds the tree of reverts, D-Mails, side branches and restores, and a reopened context lists the same", async () => {
    const setup = await kind.make();
    const { context } = setup;
    await threeTurns(context);
    await context.revertTo(2); // rotation 1: left at checkpoint 2, after 4 messages
    await context.commit({ checkpoint: true, messages: [userMessage("prompt 2, again"), assistantMessage("another answer")] });
    await context.revertTo(1, { kind: "dmail" }); // rotation 2: left at checkpoint 1; rotation 1's fork point is only in it now
    await context.addBranch([userMessage("by the way?"), assistantMessage("an aside")]); // rotation 3, beside the current branch
    expect((await context.branches()).map(shape)).toEqual([
      { rotation: null, parent: undefined, kind: "current", checkpoint: null, sharedMessages: 0, messages: 2, firstPrompt: "prompt 0" },
      { rotation: 1, parent: 2, kind: "revert", checkpoint: 2, sharedMessages: 4, messages: 6, firstPrompt: "prompt 2" },
      { rotation: 2, parent: null, kind: "dmail", checkpoint: 1, sharedMessages: 2, messages: 6, firstPrompt: "prompt 1" },
      { rotation: 3, parent: null, kind: "btw", checkpoint: 0, sharedMessages: 2, messages: 4, firstPrompt: "by the way?" },
    ]);

    // Jumping to branch 1 keeps the branch left as rotation 4, which leaves branch 1's content after the 2 messages they share.
    await context.restoreRotation(1);
    expect(context.history.map((m) => m.content[0]?.type === "text" && m.content[0].text)).toEqual(["prompt 0", "answer 0", "prompt 1", "answer 1", "prompt 2", "answer 2"]);
    const after = (await context.branches()).map(shape);
    expect(after[0]).toMatchObject({ rotation: null, messages: 6, firstPrompt: "prompt 0" });
    expect(after[4]).toEqual({ rotation: 4, parent: null, kind: "restore", checkpoint: 0, sharedMessages: 2, messages: 2, firstPrompt: null });

    const fresh = await setup.reopen(context);
    await fresh.restore();
    expect((await fresh.branches()).map(shape)).toEqual(after);
    await fresh.close();
  });

  it("a clear (and a compaction) leaves a branch that shares nothing; later branches of the old conversation move under it", async () => {
    const { context } = await kind.make();
    await threeTurns(context);
    await context.revertTo(1);
    await context.clear();
    const branches = (await context.branches()).map(shape);
    expect(branches.slice(1)).toEqual([
      { rotation: 1, parent: 2, kind: "revert", checkpoint: 1, sharedMessages: 2, messages: 6, firstPrompt: "prompt 1" },
      { rotation: 2, parent: null, kind: "clear", checkpoint: null, sharedMessages: 0, messages: 2, firstPrompt: "prompt 0" },
    ]);
    await context.close();
  });

  it("addBranch leaves the current conversation unchanged and rejects an invalid message without making a branch", async () => {
    const { context } = await kind.make();
    await threeTurns(context);
    const before = context.history.slice();
    const rotation = await context.addBranch([userMessage("aside")]);
    expect(context.history).toEqual(before);
    expect(rotation.n).toBe(1);
    await expect(context.addBranch([{ role: "user", content: [{ type: "nope" }] } as never])).rejects.toThrow();
    expect((await context.rotations()).map((r) => r.n)).toEqual([1]);
    await context.close();
  });
});

describe("Context.branches on a context.jsonl", () => {
  it("addBranch leaves the file byte-identical; the notes live in context.jsonl.branches", async () => {
    const file = path.join(await tempDir(), "context.jsonl");
    const context = new Context(file);
    await threeTurns(context);
    const before = await readFile(file);
    await context.addBranch([userMessage("aside"), assistantMessage("noted")]);
    expect((await readFile(file)).equals(before)).toBe(true);
    expect((await readFile(path.join(path.dirname(file), "context_1.jsonl"), "utf8")).startsWith(before.toString("utf8"))).toBe(true);
    expect(await readFile(path.join(path.dirname(file), "context.jsonl.branches"), "utf8")).toContain('"kind":"btw"');
    await context.close();
  });

  it("lists a rotation without a note (kimi-cli's, or a note lost) as unknown, and skips damaged or mismatched note lines", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "context.jsonl");
    const context = new Context(file);
    await threeTurns(context);
    await context.revertTo(1);
    await copyFile(file, path.join(dir, "context_2.jsonl")); // as kimi-cli's clear would leave it
    const notes = path.join(dir, "context.jsonl.branches");
    const kept = await readFile(notes, "utf8");
    // A torn line, a line of another shape, and a note written for another rotation 2 (another size): none counts.
    await writeFile(notes, `${kept}{"n":2,"size":1,"note":{"kind":"btw","checkpoint":null,"sharedMessages":0,"messages":1,"firstPrompt":null}}\n["x"]\n{"n":2,"si`);
    const branches = (await context.branches()).map(shape);
    expect(branches.map((b) => [b.rotation, b.kind])).toEqual([
      [null, "current"],
      [1, "revert"],
      [2, "unknown"],
    ]);
    // A new note after the torn line still reads.
    await context.revertTo(0);
    expect((await context.branches()).map((b) => b.kind)).toEqual(["current", "revert", "unknown", "revert"]);
    await context.close();
  });
});

it("the README's Branches example runs and prints what it says", async () => {
  const { logs } = await runReadmeBlock("### Branches");
  expect(logs).toEqual([
    [null, undefined, "current", null, "prompt 0"],
    [1, null, "revert", 1, "prompt 1"],
    [2, null, "btw", 0, "by the way?"],
  ]);
});
