/**
 * A step of the loop is one visible write: `Context.commit` takes its
 * checkpoint, token count and messages as one append and one fsync, the
 * file holds the same bytes as the separate calls, every operation is
 * durable when it resolves, a failed write changes nothing, and a crash in
 * the middle of a step loses only that step.
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
import { tempDir } from "@kosong/test-support";

const stepMessages = (n: number) => [assistantMessage(`step ${n}`, [toolCall(`c${n}`, "Shell", { command: "ls" })]), toolMessage(`c${n}`, "a.txt")];

/** A step as the loop writes it: one commit. */
const step = (context: Context, n: number) => context.commit({ checkpoint: true, tokenCount: 100 * n, messages: stepMessages(n) });

const roles = (file: string) => readFile(file, "utf8").then((text) => text.trimEnd().split("\n").map((line) => (JSON.parse(line) as { role: string }).role));

async function started(log: CountingLog): Promise<Context> {
  const context = new Context(log);
  await context.restore();
  await context.writeSystemPrompt("You help.");
  await context.commit({ checkpoint: true, messages: [userMessage("go")] });
  log.appends.length = 0;
  return context;
}

describe("Context.commit: a step is one write", () => {
  it("appends the checkpoint, the token count and the messages in one append, in that order", async () => {
    const log = new CountingLog(new MemoryContextLog());
    const context = await started(log);
    const { checkpoint } = await step(context, 1);
    expect(checkpoint).toEqual({ id: 1, messageCount: 1 });
    expect(log.appends).toEqual([["_checkpoint", "_usage", "assistant", "tool"]]);
    expect(context.checkpoints.map((c) => c.id)).toEqual([0, 1]);
    expect([context.tokenCount, context.tokenCountMessages, context.history.length]).toEqual([100, 1, 3]);
  });

  it("puts a visible checkpoint's message before the token count, which counts it", async () => {
    const log = new CountingLog(new MemoryContextLog());
    const context = await started(log);
    await context.commit({ checkpoint: { addUserMessage: true, label: "s1" }, tokenCount: 70, messages: stepMessages(1) });
    expect(log.appends).toEqual([["_checkpoint", "user", "_usage", "assistant", "tool"]]);
    expect(context.history[1]).toEqual(userMessage("<system>CHECKPOINT 1</system>"));
    // The count covers the history the request sent: up to and with the checkpoint's message.
    expect([context.tokenCount, context.tokenCountMessages]).toEqual([70, 2]);
    await context.revertTo("s1");
    expect(context.history).toHaveLength(1);
  });

  it("writes the same bytes as checkpoint(), updateTokenCount() and appendMessage() one after another", async () => {
    const dir = await tempDir();
    const write = async (file: string, oneCommit: boolean) => {
      const context = new Context(path.join(dir, file));
      await context.restore();
      await context.writeSystemPrompt("You help.");
      for (const n of [1, 2]) {
        const options = { addUserMessage: n === 2, label: `step ${n}` };
        if (oneCommit) {
          await context.commit({ checkpoint: options, tokenCount: 10 * n, messages: stepMessages(n) });
        } else {
          await context.checkpoint(options);
          await context.updateTokenCount(10 * n);
          await context.appendMessage(stepMessages(n));
        }
      }
      await context.close();
      return readFile(path.join(dir, file));
    };
    const batched = await write("batched.jsonl", true);
    expect(batched.equals(await write("separate.jsonl", false))).toBe(true);
    expect(await roles(path.join(dir, "batched.jsonl"))).toEqual([
      "_system_prompt",
      ...["_checkpoint", "_usage", "assistant", "tool"],
      ...["_checkpoint", "user", "_usage", "assistant", "tool"],
    ]);
  });

  it("makes every operation durable when it resolves: a checkpoint or a token count alone is in the log at once", async () => {
    const file = path.join(await tempDir(), "context.jsonl");
    const context = new Context(file);
    await context.restore();
    await context.appendMessage(userMessage("go"));
    await context.checkpoint({ label: "here" });
    await context.updateTokenCount(42);
    expect(await roles(file)).toEqual(["user", "_checkpoint", "_usage"]);
    // Another reader (a crash now, a second process) sees what this one shows.
    const reader = await JsonlContextFile.open(file, { lock: false });
    const state = await reader.read();
    await reader.close();
    expect([state.checkpoints.map((c) => c.label), state.tokenCount]).toEqual([["here"], 42]);
    await context.close();
  });

  it("changes nothing when the write fails, and leaves nothing behind for the next one", async () => {
    const log = new CountingLog(new MemoryContextLog());
    const context = await started(log);
    await step(context, 1);
    const before = snapshot(context);

    log.failures = 1;
    const failed = context.commit({ checkpoint: { label: "lost" }, tokenCount: 80, messages: [assistantMessage("lost")] });
    await expect(failed).rejects.toSatisfy((e: unknown) => StorageWriteError.isInstance(e));
    expect(snapshot(context)).toEqual(before);
    await expect(context.revertTo("lost")).rejects.toThrow(/lost/);

    const fresh = new Context(log.inner);
    await fresh.restore();
    expect(snapshot(fresh)).toEqual(before);

    log.appends.length = 0;
    await context.appendMessage(userMessage("again"));
    expect(log.appends).toEqual([["user"]]);
  });

  it("rejects an invalid step before writing any of it", async () => {
    const log = new CountingLog(new MemoryContextLog());
    const context = await started(log);
    const before = snapshot(context);
    await expect(context.commit({ checkpoint: true, tokenCount: -1, messages: stepMessages(1) })).rejects.toThrow();
    await expect(context.commit({ checkpoint: true, messages: [{ role: "robot" } as never] })).rejects.toThrow();
    expect(snapshot(context)).toEqual(before);
    const fresh = new Context(log.inner);
    await fresh.restore();
    expect(snapshot(fresh)).toEqual(before);
  });

  it("costs a step one write and one fsync on a context.jsonl, and an empty step none", async () => {
    const file = await JsonlContextFile.open(path.join(await tempDir(), "context.jsonl"));
    const context = new Context(file);
    await context.restore();
    await context.writeSystemPrompt("You help.");
    await context.commit({ checkpoint: true, messages: [userMessage("go")] });
    const start = file.stats;
    await step(context, 1);
    await step(context, 2);
    expect(await context.commit({})).toEqual({});
    expect({ writes: file.stats.writes - start.writes, syncs: file.stats.syncs - start.syncs }).toEqual({ writes: 2, syncs: 2 });
    await context.close();
  });

  it("loses only the running step when the process dies while the model answers (real SIGKILL)", async () => {
    const file = path.join(await tempDir(), "context.jsonl");
    await killWhenReady("checkpoint-crash-child.ts", [file], "step streaming");
    // The step's checkpoint was announced but goes out with the step's write, which never came. (The turn's
    // checkpoint has no visible message: with D-Mail on, only steps' checkpoints have one.)
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
