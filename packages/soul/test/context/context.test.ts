/**
 * Context on every log kind: each method, what it keeps in memory, and that
 * a fresh Context restoring the same log comes back to the same state.
 */
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MessageParseError, assistantMessage, toolCall, toolMessage, userMessage, type Message } from "@kosong/core";
import { InvalidRecordError, RotationNotFoundError, StorageAlreadyModifiedError, StorageClosedError, StorageOpenError } from "@kosong/context";
import { CheckpointNotFoundError, Context } from "@kosong/soul";
import { estimateTextTokens } from "@kosong/soul/internal";
import { LOG_KINDS } from "./helpers/logs.js";
import { snapshot } from "./helpers/snapshot.js";
import { tempDir } from "@kosong/test-support";

const text = (context: Context) => context.history.map((m) => (m.content[0]?.type === "text" ? m.content[0].text : m.role));

describe.each(LOG_KINDS)("Context on $name", (kind) => {
  async function restored(options?: Parameters<typeof kind.make>[0]) {
    const setup = await kind.make(options);
    await setup.context.restore();
    /** A fresh Context on the same log, restored. */
    const again = async (context = setup.context) => {
      const fresh = await setup.reopen(context);
      await fresh.restore();
      return fresh;
    };
    return { context: setup.context, again };
  }

  it("starts empty, as kimi-cli's does", async () => {
    const { context } = await restored();
    expect(snapshot(context)).toEqual({ history: [], tokenCount: 0, tokenCountWithPending: 0, nCheckpoints: 0, checkpoints: [], systemPrompt: null });
    await context.close();
  });

  it("appends one message or a batch, and a fresh Context restores them", async () => {
    const { context, again } = await restored();
    await context.appendMessage(userMessage("one"));
    await context.appendMessage([assistantMessage("two"), userMessage("three")]);
    await context.appendMessage([]);
    expect(text(context)).toEqual(["one", "two", "three"]);
    const fresh = await again();
    expect(snapshot(fresh)).toEqual(snapshot(context));
    await fresh.close();
  });

  it("keeps its own copy of appended messages", async () => {
    const { context } = await restored();
    const message = userMessage("original");
    await context.appendMessage(message);
    (message.content[0] as { text: string }).text = "changed";
    expect(text(context)).toEqual(["original"]);
    await context.close();
  });

  it("counts tokens: the last usage plus kimi-cli's estimate (text chars / 4 per batch) of what came after", async () => {
    const { context, again } = await restored();
    await context.appendMessage(userMessage("x".repeat(10)));
    expect(context.tokenCountWithPending).toBe(2);
    await context.appendMessage([userMessage("x".repeat(3)), userMessage("x".repeat(3))]);
    expect(context.tokenCountWithPending).toBe(2 + 1);
    await context.updateTokenCount(100);
    expect([context.tokenCount, context.tokenCountWithPending]).toEqual([100, 100]);
    await context.appendMessage(userMessage("y".repeat(40)));
    expect([context.tokenCount, context.tokenCountWithPending]).toEqual([100, 110]);
    const fresh = await again();
    expect([fresh.tokenCount, fresh.tokenCountWithPending]).toEqual([100, 110]);
    await fresh.close();
  });

  it("takes another estimator", async () => {
    const { context } = await restored({ estimateTokens: (messages) => messages.length * 1000 });
    await context.updateTokenCount(5);
    await context.appendMessage([userMessage("a"), userMessage("b")]);
    expect(context.tokenCountWithPending).toBe(2005);
    await context.close();
  });

  it("makes checkpoints with ids from 0, optional labels and the visible CHECKPOINT message", async () => {
    const { context, again } = await restored();
    expect(await context.checkpoint()).toEqual({ id: 0, messageCount: 0 });
    await context.appendMessage(userMessage("hello"));
    expect(await context.checkpoint({ addUserMessage: true, label: "before tools" })).toEqual({ id: 1, label: "before tools", messageCount: 1 });
    expect(text(context)).toEqual(["hello", "<system>CHECKPOINT 1</system>"]);
    expect(context.nCheckpoints).toBe(2);
    expect(context.checkpoints).toEqual([
      { id: 0, messageCount: 0 },
      { id: 1, label: "before tools", messageCount: 1 },
    ]);
    const fresh = await again();
    expect(snapshot(fresh)).toEqual(snapshot(context));
    await fresh.close();
  });

  it("reverts to a checkpoint as kimi-cli does: it and everything after go, its id is used again", async () => {
    const { context, again } = await restored();
    await context.checkpoint();
    await context.appendMessage(userMessage("first"));
    await context.updateTokenCount(50);
    await context.appendMessage(assistantMessage("x".repeat(8)));
    const before = snapshot(context);
    await context.checkpoint({ addUserMessage: true });
    await context.appendMessage(userMessage("second"));
    await context.updateTokenCount(90);
    await context.checkpoint();

    const { checkpoint, rotation } = await context.revertTo(1);
    expect(checkpoint).toEqual({ id: 1, messageCount: 2 });
    expect(rotation.n).toBe(1);
    expect(snapshot(context)).toEqual(before);
    expect(context.tokenCountWithPending).toBe(52);
    expect(await context.checkpoint()).toEqual({ id: 1, messageCount: 2 });

    const fresh = await again();
    expect(snapshot(fresh)).toEqual(snapshot(context));
    expect((await fresh.rotations()).map((r) => r.n)).toEqual([1]);
    await fresh.close();
  });

  it("reverts to a label's most recent checkpoint", async () => {
    const { context } = await restored();
    await context.checkpoint({ label: "turn" });
    await context.appendMessage(userMessage("a"));
    await context.checkpoint({ label: "turn" });
    await context.appendMessage(userMessage("b"));
    await context.checkpoint({ label: "other" });
    expect((await context.revertTo("turn")).checkpoint).toEqual({ id: 1, label: "turn", messageCount: 1 });
    expect(text(context)).toEqual(["a"]);
    await context.close();
  });

  it("rejects a missing checkpoint with a typed error naming the ones that exist, and changes nothing", async () => {
    const { context, again } = await restored();
    await context.checkpoint();
    await context.appendMessage(userMessage("a"));
    await context.checkpoint({ label: "x" });
    const before = snapshot(context);
    for (const missing of [2, 7, "y"] as const) {
      const error = await context.revertTo(missing).catch((e: unknown) => e);
      expect(CheckpointNotFoundError.isInstance(error)).toBe(true);
      const notFound = error as CheckpointNotFoundError;
      expect(notFound.requested).toBe(missing);
      expect(notFound.available).toEqual([{ id: 0 }, { id: 1, label: "x" }]);
      expect(notFound.message).toContain('0, 1 ("x")');
    }
    expect(snapshot(context)).toEqual(before);
    expect(await context.rotations()).toEqual([]);
    const fresh = await again();
    expect(snapshot(fresh)).toEqual(before);
    await fresh.close();
  });

  it("says there are none when no checkpoint exists", async () => {
    const { context } = await restored();
    await expect(context.revertTo(0)).rejects.toThrow("no checkpoint 0: there are no checkpoints");
    await context.close();
  });

  it("clears into a rotation, and restoreRotation undoes the clear", async () => {
    const { context, again } = await restored();
    await context.writeSystemPrompt("prompt");
    await context.checkpoint();
    await context.appendMessage(userMessage("kept"));
    await context.updateTokenCount(10);
    const before = snapshot(context);

    expect((await context.clear()).n).toBe(1);
    expect(snapshot(context)).toEqual({ history: [], tokenCount: 0, tokenCountWithPending: 0, nCheckpoints: 0, checkpoints: [], systemPrompt: null });
    const cleared = await again();
    expect(snapshot(cleared)).toEqual(snapshot(context));

    const { restored: back, savedAs } = await cleared.restoreRotation(1);
    expect(back.n).toBe(1);
    expect(savedAs?.n).toBe(2);
    expect(snapshot(cleared)).toEqual(before);
    const fresh = await again(cleared);
    expect(snapshot(fresh)).toEqual(before);
    await fresh.close();
  });

  it("undoes a revert with restoreRotation, and redoes it with the rotation that saved the reverted log", async () => {
    const { context } = await restored();
    await context.checkpoint();
    await context.appendMessage(userMessage("a"));
    await context.checkpoint();
    await context.appendMessage(userMessage("b"));
    const full = snapshot(context);
    await context.revertTo(1);
    const reverted = snapshot(context);
    const { savedAs } = await context.restoreRotation(1);
    expect(snapshot(context)).toEqual(full);
    await context.restoreRotation(savedAs!.n);
    expect(snapshot(context)).toEqual(reverted);
    expect((await context.rotations()).map((r) => r.n)).toEqual([1, 2, 3]);
    await expect(context.restoreRotation(9)).rejects.toSatisfy((e: unknown) => RotationNotFoundError.isInstance(e));
    expect(snapshot(context)).toEqual(reverted);
    await context.close();
  });

  it("writes the system prompt first in an empty log", async () => {
    const { context, again } = await restored();
    await context.writeSystemPrompt("be brief");
    await context.checkpoint();
    expect(context.systemPrompt).toBe("be brief");
    const fresh = await again();
    expect(fresh.systemPrompt).toBe("be brief");
    await fresh.close();
  });

  it("puts a late system prompt before everything (as kimi-cli), and checkpoints still revert", async () => {
    const { context, again } = await restored();
    await context.checkpoint();
    await context.appendMessage(userMessage("a"));
    await context.checkpoint();
    await context.appendMessage(userMessage("b"));
    await context.writeSystemPrompt("late");
    expect(context.systemPrompt).toBe("late");
    await context.revertTo(1);
    expect([text(context), context.systemPrompt]).toEqual([["a"], "late"]);
    const fresh = await again();
    expect(snapshot(fresh)).toEqual(snapshot(context));
    await fresh.revertTo(0);
    expect([text(fresh), fresh.systemPrompt]).toEqual([[], "late"]);
    await fresh.close();
  });

  it("appends a new system prompt when one is stored: it holds from there, a revert brings the old one back", async () => {
    const { context, again } = await restored();
    await context.writeSystemPrompt("old");
    await context.checkpoint();
    await context.writeSystemPrompt("new");
    expect(context.systemPrompt).toBe("new");
    const fresh = await again();
    expect(fresh.systemPrompt).toBe("new");
    await fresh.revertTo(0);
    expect(fresh.systemPrompt).toBe("old");
    await fresh.close();
  });

  it("restores by itself before the first change, and restore() runs only once, first", async () => {
    const setup = await kind.make();
    await setup.context.appendMessage(userMessage("a"));
    const second = await setup.reopen(setup.context);
    await second.appendMessage(userMessage("b"));
    expect(text(second)).toEqual(["a", "b"]);
    await expect(second.restore()).rejects.toSatisfy((e: unknown) => StorageAlreadyModifiedError.isInstance(e));
    const third = await setup.reopen(second);
    await third.restore();
    await expect(third.restore()).rejects.toSatisfy((e: unknown) => StorageAlreadyModifiedError.isInstance(e));
    expect(text(third)).toEqual(["a", "b"]);
    await third.close();
  });

  it("rejects an invalid message or token count with a typed error and writes nothing of the call", async () => {
    const { context, again } = await restored();
    await context.appendMessage(userMessage("good"));
    const bad = { role: "user", content: [{ type: "text", text: 42 }] } as unknown as Message;
    await expect(context.appendMessage([userMessage("also good"), bad])).rejects.toSatisfy((e: unknown) => MessageParseError.isInstance(e));
    await expect(context.updateTokenCount(-1)).rejects.toSatisfy((e: unknown) => InvalidRecordError.isInstance(e));
    await expect(context.updateTokenCount(1.5)).rejects.toSatisfy((e: unknown) => InvalidRecordError.isInstance(e));
    await expect(context.checkpoint({ label: 3 as unknown as string })).rejects.toSatisfy((e: unknown) => InvalidRecordError.isInstance(e));
    expect([text(context), context.tokenCount, context.nCheckpoints]).toEqual([["good"], 0, 0]);
    const fresh = await again();
    expect(snapshot(fresh)).toEqual(snapshot(context));
    await fresh.close();
  });

  it("runs operations in call order without waiting between them", async () => {
    const { context, again } = await restored();
    const ops = [
      context.checkpoint(),
      context.appendMessage(userMessage("a")),
      context.updateTokenCount(3),
      context.checkpoint({ addUserMessage: true }),
      context.appendMessage(userMessage("b")),
    ];
    await Promise.all(ops);
    expect(text(context)).toEqual(["a", "<system>CHECKPOINT 1</system>", "b"]);
    expect(context.checkpoints).toEqual([
      { id: 0, messageCount: 0 },
      { id: 1, messageCount: 1 },
    ]);
    const fresh = await again();
    expect(snapshot(fresh)).toEqual(snapshot(context));
    await fresh.close();
  });

  it("closes (also through await using): every later call rejects with StorageClosedError", async () => {
    const setup = await kind.make();
    {
      await using context = setup.context;
      await context.restore();
      await context.appendMessage(userMessage("a"));
    }
    await setup.context.close();
    for (const call of [() => setup.context.appendMessage(userMessage("b")), () => setup.context.checkpoint(), () => setup.context.rotations()]) {
      await expect(call()).rejects.toSatisfy((e: unknown) => StorageClosedError.isInstance(e));
    }
  });

  it("answers an unanswered call at the end of the log as interrupted, in the log", async () => {
    const { context, again } = await restored();
    await context.checkpoint();
    await context.appendMessage(userMessage("go"));
    await context.appendMessage(assistantMessage("", [toolCall("c1", "Shell", { command: "ls" }), toolCall("c2", "Shell", { command: "pwd" })]));
    await context.appendMessage(toolMessage("c1", "a.txt"));
    const fresh = await again();
    expect(fresh.history.map((m) => m.tool_call_id)).toEqual([undefined, undefined, "c1", "c2"]);
    expect(fresh.history.at(-1)!.content).toEqual([{ type: "text", text: expect.stringMatching(/^<system>ERROR: The tool call was interrupted/) }]);
    const third = await again(fresh);
    expect(third.history).toEqual(fresh.history);
    await third.close();
  });
});

describe("Context on a context.jsonl path", () => {
  it("opens the file on first use: a folder that does not exist is a StorageOpenError, and the next call tries again", async () => {
    const dir = path.join(await tempDir(), "later");
    const context = new Context(path.join(dir, "context.jsonl"));
    expect(context.location).toBe(path.join(dir, "context.jsonl"));
    await expect(context.restore()).rejects.toSatisfy((e: unknown) => StorageOpenError.isInstance(e));
    await mkdir(dir);
    await context.restore();
    await context.appendMessage(userMessage("now"));
    await context.close();
    expect(await readFile(path.join(dir, "context.jsonl"), "utf8")).toBe('{"role":"user","content":"now"}\n');
  });
});

describe("Context.clear with carried labels and continued ids (what a compaction writes)", () => {
  it("writes them in one step, and a restore from the file reads the same checkpoints", async () => {
    const file = path.join(await tempDir(), "context.jsonl");
    const context = new Context(file);
    await context.restore();
    await context.checkpoint({ label: "before-a" });
    await context.appendMessage(userMessage("a"));
    await context.checkpoint();
    await context.appendMessage(assistantMessage("one"));
    await expect(context.clear({ firstCheckpointId: -1 })).rejects.toThrow(RangeError);
    const cleared = await context.clear({ firstCheckpointId: context.nCheckpoints, then: { systemPrompt: "sys", checkpoint: true, messages: [userMessage("summary")], labels: ["before-a"] } });
    expect(cleared.newCheckpoint).toEqual({ id: 2, messageCount: 0 });
    expect(context.checkpoints).toEqual([{ id: 2, messageCount: 0 }, { id: 3, label: "before-a", messageCount: 1 }]);
    expect(context.nCheckpoints).toBe(4);
    await context.appendMessage(assistantMessage("later"));
    await context.close();

    const again = new Context(file);
    await again.restore();
    expect(again.checkpoints).toEqual([{ id: 2, messageCount: 0 }, { id: 3, label: "before-a", messageCount: 1 }]);
    expect([again.findCheckpoint(3), again.findCheckpoint(2), again.findCheckpoint(0), again.findCheckpoint(4)]).toEqual([{ id: 3, label: "before-a", messageCount: 1 }, { id: 2, messageCount: 0 }, null, null]);
    await expect(again.revertTo(0)).rejects.toSatisfy((e: unknown) => CheckpointNotFoundError.isInstance(e));
    await again.revertTo("before-a");
    expect(again.history).toEqual([userMessage("summary")]);
    await again.close();
  });
});

describe("estimateTextTokens", () => {
  it("counts text parts only, as code points, four to a token, rounded down", () => {
    expect(estimateTextTokens([userMessage("abc")])).toBe(0);
    expect(estimateTextTokens([userMessage("abcd"), assistantMessage([{ type: "think", think: "x".repeat(400) }])])).toBe(1);
    expect(estimateTextTokens([userMessage("😀😀😀😀")])).toBe(1);
    expect(estimateTextTokens([userMessage("你好你好你好你好")])).toBe(2);
  });
});
