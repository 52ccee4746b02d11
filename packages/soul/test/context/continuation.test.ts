/**
 * A revert or a clear with `then`: what follows it (a checkpoint, messages,
 * after a clear a system prompt) is written in the same log step, one
 * `truncateAndRotate` with records, so a crash leaves the context wholly
 * before or wholly after. The file and the context are exactly what the
 * separate calls make.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MessageParseError, assistantMessage, toolCall, toolMessage, userMessage, type Message } from "@kosong/core";
import { MemoryContextLog } from "@kosong/context";
import { Context } from "@kosong/soul";
import { validateConversation } from "@kosong/soul/conversation";
import { CountingLog } from "./helpers/counting-log.js";
import { LOG_KINDS } from "./helpers/logs.js";
import { snapshot } from "./helpers/snapshot.js";
import { tempDir } from "@kosong/test-support";

/** Two turns, then a checkpoint and a token count still held for the next append. */
async function seed(context: Context): Promise<void> {
  await context.restore();
  await context.writeSystemPrompt("You help.");
  for (const n of [0, 1]) {
    await context.checkpoint({ addUserMessage: true, label: `turn ${n}` });
    await context.appendMessage(userMessage(`question ${n}`));
    await context.updateTokenCount(100 * (n + 1));
    await context.appendMessage(assistantMessage(`answer ${n}`));
  }
  await context.checkpoint();
  await context.updateTokenCount(250);
}

const compacted: Message[] = [userMessage("summary"), assistantMessage("answer 1")];

/** The same seeded conversation in two files: one changed by separate calls, one by a single call with `then`. */
async function twins(): Promise<{ dir: string; separate: Context; together: Context }> {
  const dir = await tempDir();
  const separate = new Context(path.join(dir, "separate.jsonl"));
  const together = new Context(path.join(dir, "together.jsonl"));
  await seed(separate);
  await seed(together);
  return { dir, separate, together };
}

async function expectSameFiles(dir: string, separate: Context, together: Context): Promise<void> {
  expect(snapshot(together)).toEqual(snapshot(separate));
  await Promise.all([separate.close(), together.close()]);
  for (const name of ["", "_1"]) {
    const [a, b] = await Promise.all([readFile(path.join(dir, `separate${name}.jsonl`)), readFile(path.join(dir, `together${name}.jsonl`))]);
    expect(b.toString(), `file ${name || "current"}`).toBe(a.toString());
  }
}

describe("revert or clear, and what follows, in one step", () => {
  it("clear with a system prompt, a checkpoint and messages writes the bytes and makes the context that the separate calls make", async () => {
    const { dir, separate, together } = await twins();
    await separate.clear();
    await separate.writeSystemPrompt("You help.");
    const made = await separate.checkpoint({ addUserMessage: true });
    await separate.appendMessage(compacted);

    const cleared = await together.clear({ then: { systemPrompt: "You help.", checkpoint: { addUserMessage: true }, messages: compacted } });
    expect(cleared).toMatchObject({ n: 1, newCheckpoint: made });
    await expectSameFiles(dir, separate, together);
  });

  it("revert with a labelled checkpoint and messages writes the same bytes; the new checkpoint can be reverted to, after a reopen too", async () => {
    const { dir, separate, together } = await twins();
    await separate.revertTo("turn 1");
    const made = await separate.checkpoint({ label: "edited" });
    await separate.appendMessage([userMessage("question 1, edited"), assistantMessage("another answer")]);

    const before = snapshot(together);
    const revert = await together.revertTo("turn 1", { then: { checkpoint: { label: "edited" }, messages: [userMessage("question 1, edited"), assistantMessage("another answer")] } });
    expect(revert.checkpoint).toMatchObject({ id: 1, label: "turn 1" });
    expect(revert.newCheckpoint).toEqual(made);
    await expectSameFiles(dir, separate, together);

    const reopened = new Context(path.join(dir, "together.jsonl"));
    await reopened.restore();
    expect(reopened.checkpoints.at(-1)).toEqual(made);
    await reopened.revertTo("edited");
    expect(reopened.history.map((m) => m.content)).toEqual(before.history.slice(0, made.messageCount).map((m) => m.content));
    await reopened.close();
  });

  it("is one truncation of the log, and nothing else", async () => {
    const log = new CountingLog(new MemoryContextLog());
    const context = new Context(log);
    await seed(context);
    log.appends.length = 0;
    await context.revertTo(0, { then: { checkpoint: true, messages: [userMessage("from the future")] } });
    expect(log.appends).toEqual([]);
    expect(log.truncations).toEqual([["_checkpoint", "user"]]);
    await context.clear({ then: { systemPrompt: "You help.", checkpoint: { addUserMessage: true }, messages: compacted } });
    expect(log.appends).toEqual([]);
    expect(log.truncations[1]).toEqual(["_system_prompt", "_checkpoint", "user", "user", "assistant"]);
    expect([context.nCheckpoints, context.tokenCount, context.systemPrompt]).toEqual([1, 0, "You help."]);
  });

  it("answers tool calls the kept history leaves unanswered before what follows", async () => {
    const log = new CountingLog(new MemoryContextLog());
    const context = new Context(log);
    await context.restore();
    await context.checkpoint();
    await context.appendMessage([userMessage("list"), assistantMessage("Listing.", [toolCall("c1", "Shell", { command: "ls" })])]);
    await context.checkpoint({ label: "calls made" });
    await context.appendMessage(toolMessage("c1", "a.txt"));
    await context.revertTo("calls made", { then: { checkpoint: true, messages: [userMessage("the result was lost")] } });
    expect(log.truncations.at(-1)).toEqual(["tool", "_checkpoint", "user"]);
    expect(validateConversation(context.history)).toEqual([]);
    expect(context.checkpoints.at(-1)).toEqual({ id: 1, messageCount: 3 });
  });

  for (const kind of LOG_KINDS) {
    it(`rejects an invalid message in then and changes nothing (${kind.name})`, async () => {
      const { context, reopen } = await kind.make();
      await seed(context);
      const before = snapshot(context);
      const bad = { role: "robot", content: [] } as unknown as Message;
      await expect(context.revertTo(1, { then: { checkpoint: true, messages: [bad] } })).rejects.toSatisfy(MessageParseError.isInstance);
      await expect(context.clear({ then: { systemPrompt: "x", messages: [userMessage("ok"), bad] } })).rejects.toSatisfy(MessageParseError.isInstance);
      expect(snapshot(context)).toEqual(before);
      expect(await context.rotations()).toEqual([]);
      const again = await reopen(context);
      await again.restore();
      expect(snapshot(again)).toEqual(before);
      await again.close();
    });
  }
});
