/**
 * A process that dies in the middle of a step, for the crash test: a Soul
 * on the Context at argv[2] runs a turn whose model answer streams for
 * ever; when its first text arrives (the step's checkpoint made and
 * announced, the model answering) the child prints "step streaming" and
 * waits for its SIGKILL. Runs on the built package (`import "@kosong/soul"`
 * resolves to dist).
 */
import { SimpleToolset } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { Context, SendDMail, Soul } from "@kosong/soul";

const context = new Context(process.argv[2]!);
await context.restore();
// One-character chunks 50 ms apart: the answer streams for minutes, well past the kill.
const provider = new ScriptedChatProvider([`text: ${"reading a.txt now. ".repeat(200)}`], { chunkSize: 1, delayMs: 50 });
const soul = new Soul({ agent: { name: "crash", systemPrompt: "You are a crash test.", toolset: new SimpleToolset([SendDMail]) }, provider, context });
for await (const event of soul.run("read a.txt")) {
  if (event.type === "TextPart") process.stdout.write("step streaming\n");
}
