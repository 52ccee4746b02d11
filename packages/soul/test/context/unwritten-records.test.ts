/**
 * Checkpoints without their visible message and token counts travel with
 * the next append: a step of the loop (checkpoint, token count, messages)
 * is one append and one fsync, the file holds the same bytes as if each had
 * been written at once, a failed write leaves memory as the log is, and a
 * crash before the append loses only those records.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assistantMessage, toolCall, toolMessage, userMessage } from "@kosong/core";
import { JsonlContextFile, MemoryContextLog, StorageWriteError } from "@kosong/context";
import { Context } from "@kosong/soul";
import { validateConversation } from "@kosong/soul/conversation";
import { CountingLog } from "./helpers/counting-log.js";
import { killWhenReady } from "./helpers/kill-child.js";
import { snapshot } from "./helpers/snapshot.js";
import { tempDir } from "./helpers/temp-dir.js";

/** A step as the loop makes it: checkpoint, the provider's token count, the assistant message with its tool result. */
async function step(context: Context, n: number): Promise<void> {
  await context.checkpoint();
  await context.updateTokenCount(100 * n);
  await context.appendMessage([assistantMessage(`step ${n}`, [toolCall(`c${n}`, "Shell", { command: "ls" })]), toolMessage(`c${n}`, "a.txt")]);
}

const roles = (file: string) => readFile(file, "utf8").then((text) => text.trimEnd().split("\n").map((line) => (JSON.parse(line) as { role: string }).role));

describe("records that add no message go with the next append", () => {
  it("makes a step one append, carrying the checkpoint and the token count in the order they were made", async () => {
    const log = new CountingLog(new MemoryContextLog());
    const context = new Context(log);
    await context.restore();
    await context.writeSystemPrompt("You help.");
    await context.checkpoint();
    await context.appendMessage(userMessage("go"));
    log.appends.length = 0;

    await step(context, 1);
    expect(log.appends).toEqual([["_checkpoint", "_usage", "assistant", "tool"]]);
    expect(context.checkpoints.map((c) => c.id)).toEqual([0, 1]);
    expect(context.tokenCount).toBe(100);
  });

  it("shows a checkpoint and a token count at once, before they are written", async () => {
    const log = new CountingLog(new MemoryContextLog());
    const context = new Context(log);
    await context.restore();
    await context.appendMessage(userMessage("go"));
    log.appends.length = 0;
    expect(await context.checkpoint({ label: "here" })).toEqual({ id: 0, label: "here", messageCount: 1 });
    await context.updateTokenCount(42);
    expect([context.nCheckpoints, context.tokenCount, context.tokenCountWithPending]).toEqual([1, 42, 42]);
    expect(log.appends).toEqual([]);
    await context.flush();
    expect(log.appends).toEqual([["_checkpoint", "_usage"]]);
    await context.flush();
    expect(log.appends).toHaveLength(1);
  });

  it("writes the file kimi-cli would, byte for byte, whatever order the records come in", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "context.jsonl");
    const context = new Context(file);
    await context.restore();
    await context.checkpoint(); // held, then written before the prepended system prompt
    await context.writeSystemPrompt("You help.");
    await context.appendMessage(userMessage("go"));
    await context.updateTokenCount(7);
    await context.checkpoint(); // the token count before it goes out on its own, so the checkpoint leads an append
    await context.checkpoint({ addUserMessage: true });
    await step(context, 1);
    await context.updateTokenCount(9);
    await context.close();
    expect(await roles(file)).toEqual([
      "_system_prompt",
      "_checkpoint",
      "user",
      "_usage",
      "_checkpoint",
      "_checkpoint",
      "user",
      "_checkpoint",
      "_usage",
      "assistant",
      "tool",
      "_usage",
    ]);
    const records = (await readFile(file, "utf8")).trimEnd().split("\n").map((line) => JSON.parse(line) as { role: string });
    expect(records.filter((r) => r.role === "_checkpoint")).toEqual([0, 1, 2, 3].map((id) => ({ role: "_checkpoint", id })));
    expect(records.filter((r) => r.role === "_usage")).toEqual([7, 100, 9].map((token_count) => ({ role: "_usage", token_count })));

    const again = new Context(file);
    await again.restore();
    expect([again.nCheckpoints, again.tokenCount, again.history.length]).toEqual([4, 9, 4]);
    await again.close();
  });

  it("writes held records before a revert, a clear and a restored rotation, so each keeps them", async () => {
    const log = new CountingLog(new MemoryContextLog());
    const context = new Context(log);
    await context.restore();
    await context.appendMessage(userMessage("a"));
    await context.checkpoint();
    await context.updateTokenCount(5);
    const { rotation } = await context.revertTo(0);
    expect(log.appends.at(-1)).toEqual(["_checkpoint", "_usage"]);
    expect(await log.inner.listRotations()).toMatchObject([{ n: rotation.n, size: 3 }]);

    await context.checkpoint();
    const cleared = await context.clear();
    expect((await log.inner.listRotations()).find((r) => r.n === cleared.n)?.size).toBe(2);

    await context.updateTokenCount(8);
    const { savedAs } = await context.restoreRotation(rotation.n);
    expect((await log.inner.listRotations()).find((r) => r.n === savedAs?.n)?.size).toBe(1);
    expect([context.history.length, context.tokenCount, context.nCheckpoints]).toEqual([1, 5, 1]);
  });

  it("rejects the append that carried a failed write, and forgets what it carried", async () => {
    const log = new CountingLog(new MemoryContextLog());
    const context = new Context(log);
    await context.restore();
    await context.checkpoint();
    await context.appendMessage(userMessage("go"));
    await context.updateTokenCount(50);
    await context.appendMessage(assistantMessage("ok"));
    const before = snapshot(context);

    await context.checkpoint({ label: "step" });
    await context.updateTokenCount(80);
    log.failures = 1;
    await expect(context.appendMessage(assistantMessage("lost"))).rejects.toSatisfy((e: unknown) => StorageWriteError.isInstance(e));
    expect(snapshot(context)).toEqual(before);
    await expect(context.revertTo("step")).rejects.toThrow(/step/);

    const fresh = new Context(log.inner);
    await fresh.restore();
    expect(snapshot(fresh)).toEqual(before);

    // Nothing stale goes out with the next append.
    log.appends.length = 0;
    await context.appendMessage(userMessage("again"));
    expect(log.appends).toEqual([["user"]]);
  });

  it("rejects flush() and close() when the held records cannot be written, and still closes the log", async () => {
    const log = new CountingLog(new MemoryContextLog());
    const context = new Context(log);
    await context.restore();
    await context.checkpoint();
    log.failures = 1;
    await expect(context.flush()).rejects.toSatisfy((e: unknown) => StorageWriteError.isInstance(e));
    expect(context.nCheckpoints).toBe(0);

    await context.updateTokenCount(3);
    log.failures = 1;
    await expect(context.close()).rejects.toSatisfy((e: unknown) => StorageWriteError.isInstance(e));
    await expect(log.inner.read()).rejects.toThrow(/closed/);
  });

  it("costs a step one write and one fsync on a context.jsonl", async () => {
    const file = await JsonlContextFile.open(path.join(await tempDir(), "context.jsonl"));
    const context = new Context(file);
    await context.restore();
    await context.writeSystemPrompt("You help.");
    await context.checkpoint();
    await context.appendMessage(userMessage("go"));
    const start = file.stats;
    await step(context, 1);
    await step(context, 2);
    expect({ writes: file.stats.writes - start.writes, syncs: file.stats.syncs - start.syncs }).toEqual({ writes: 2, syncs: 2 });
    await context.close();
  });

  it("restores a valid context after a crash between a step's checkpoint and its append (real SIGKILL)", async () => {
    const file = path.join(await tempDir(), "context.jsonl");
    await killWhenReady("checkpoint-crash-child.ts", [file], "step checkpointed");
    // The step's checkpoint and token count waited for its append, which never came: the file ends at the user message.
    expect(await roles(file)).toEqual(["_system_prompt", "_checkpoint", "user"]);

    const context = new Context(file);
    const report = await context.restore();
    expect(report.skipped).toEqual([]);
    expect([context.history.length, context.nCheckpoints, context.tokenCount, context.systemPrompt]).toEqual([1, 1, 0, "You are a crash test."]);
    await step(context, 1);
    expect(context.checkpoints.map((c) => c.id)).toEqual([0, 1]);
    expect(validateConversation(context.history)).toEqual([]);
    await context.close();

    const again = new Context(file);
    await again.restore();
    expect(snapshot(again)).toEqual(snapshot(context));
    await again.revertTo(1);
    expect(again.history.map((m) => m.role)).toEqual(["user"]);
    await again.close();
  });
});
