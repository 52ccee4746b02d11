/**
 * A process that dies between a step's checkpoint and the step's append,
 * for the crash test: it opens the Context at argv[2], writes a turn's
 * start (system prompt, checkpoint 0, the user message), then makes the
 * step's checkpoint and token count (held for the step's append), prints
 * "step checkpointed" and waits for its SIGKILL, as if the model were still
 * answering. Runs on the built package (`import "@kosong/soul"` resolves to dist).
 */
import { userMessage } from "@kosong/core";
import { Context } from "@kosong/soul";

const context = new Context(process.argv[2]!);
await context.restore();
await context.writeSystemPrompt("You are a crash test.");
await context.checkpoint();
await context.appendMessage(userMessage("read a.txt"));
await context.checkpoint();
await context.updateTokenCount(1234);
process.stdout.write("step checkpointed\n");
setInterval(() => undefined, 60_000);
