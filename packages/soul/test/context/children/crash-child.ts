/**
 * A process that dies mid-step, for the crash test: it opens the Context at
 * argv[2], starts a turn, appends the assistant message with two tool
 * calls as kimi-cli does (before their results), prints "calls appended"
 * and waits for its SIGKILL, as if the tools were still running.
 * Runs on the built package (`import "@kosong/soul"` resolves to dist).
 */
import { assistantMessage, toolCall, userMessage } from "@kosong/core";
import { Context } from "@kosong/soul";

const context = new Context(process.argv[2]!);
await context.restore();
await context.checkpoint();
await context.appendMessage(userMessage("list and read"));
await context.checkpoint();
await context.appendMessage(assistantMessage("Looking.", [toolCall("call_ls", "Shell", { command: "ls" }), toolCall("call_cat", "ReadFile", { path: "a.txt" })]));
process.stdout.write("calls appended\n");
setInterval(() => undefined, 60_000);
