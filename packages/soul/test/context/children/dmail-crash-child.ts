/**
 * A process that delivers D-Mails over and over, for the D-Mail crash test:
 * it opens the Context at argv[2], then forever appends a turn (visible
 * checkpoint, question, answer with 2 KiB of text) and, every third turn,
 * reverts to a checkpoint two turns back with a fresh visible checkpoint
 * and the D-Mail as `then`. Before each revert it prints "delivering
 * <sha256 of the conversation> <sha256 of the conversation it will be>",
 * after it "delivered"; it prints "ready" after the first turn. Runs on the
 * built package (`import "@kosong/soul"` resolves to dist).
 */
import { createHash } from "node:crypto";
import { assistantMessage, userMessage, type Message } from "@kosong/core";
import { Context } from "@kosong/soul";

const sha = (messages: readonly Message[]) => createHash("sha256").update(JSON.stringify(messages.map((m) => [m.role, m.content]))).digest("hex");
const checkpointMessage = (id: number) => userMessage(`<system>CHECKPOINT ${id}</system>`);

const context = new Context(process.argv[2]!);
await context.restore();
for (let turn = 1; ; turn += 1) {
  await context.checkpoint({ addUserMessage: true });
  await context.appendMessage(userMessage(`question ${turn}`));
  await context.updateTokenCount(100 * turn);
  await context.appendMessage(assistantMessage(`answer ${turn} ${"x".repeat(2048)}`));
  if (turn === 1) process.stdout.write("ready\n");
  if (turn % 3 !== 0) continue;
  const target = context.checkpoints.at(-2)!;
  const dmail = userMessage(`D-Mail ${turn}: try the other way`);
  const expected = [...context.history.slice(0, target.messageCount), checkpointMessage(target.id), dmail];
  process.stdout.write(`delivering ${sha(context.history)} ${sha(expected)}\n`);
  await context.revertTo(target.id, { then: { checkpoint: { addUserMessage: true }, messages: [dmail] } });
  if (sha(context.history) !== sha(expected)) throw new Error("the context after the revert is not the expected one");
  process.stdout.write("delivered\n");
}
