/**
 * A process that compacts over and over, for the compaction crash test: it
 * opens the Context at argv[2], runs a turn, prints "ready", then forever
 * runs two turns ("round N, question A/B", answered by a scripted model)
 * and compacts, printing before each compaction "compacting <sha256 of the
 * conversation> <sha256 of the compacted conversation>" and after it
 * "compacted". The strategy needs no model: a summary message and the last
 * two messages. Runs on the built packages (`@kosong/soul` resolves to dist).
 */
import { createHash } from "node:crypto";
import { SimpleToolset, userMessage, type Message } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { Context, Soul, type Compaction } from "@kosong/soul";

/** What the conversation's hash is taken of: each message's role and content. */
const sha = (messages: readonly Message[]) => createHash("sha256").update(JSON.stringify(messages.map((m) => [m.role, m.content]))).digest("hex");

let round = 0;
const summary = (history: readonly Message[]): Message[] => [userMessage(`summary of ${history.length} messages, round ${round}`), ...history.slice(-2)];
const strategy: Compaction = {
  name: "summary-and-last-two",
  compact: async (history) => ({ messages: summary(history), usage: null }),
};

const context = new Context(process.argv[2]!);
await context.restore();
const provider = new ScriptedChatProvider([]);
const soul = new Soul({
  agent: { name: "compaction-crash", systemPrompt: "You are compacted a lot.", toolset: new SimpleToolset([]) },
  provider,
  context,
  compaction: strategy,
  config: { retry: { initialDelayMs: 0, maxDelayMs: 0, jitterMs: 0, maxRetryAfterMs: 0 } },
});

async function turn(text: string): Promise<void> {
  provider.push(`text: answer to ${text} ${"x".repeat(2000)}\nusage: input_other=100 output=5`);
  await soul.run(text).result;
}

await turn("warm-up");
process.stdout.write("ready\n");
for (;;) {
  round += 1;
  await turn(`round ${round}, question A`);
  await turn(`round ${round}, question B`);
  process.stdout.write(`compacting ${sha(context.history)} ${sha(summary(context.history))}\n`);
  await soul.compact().result;
  process.stdout.write("compacted\n");
}
