/**
 * A process that edits its history over and over, for the crash test of
 * the soul's whole-history operations: it opens the Context at argv[2], runs
 * a turn, prints "ready", then forever runs two turns ("round N, question
 * A/B", answered by a scripted model) and then, as argv[3] says:
 *
 * - `compact`: prints "editing <sha of the conversation> <sha of the
 *   compacted conversation> <its length>", compacts, prints "edited". The
 *   strategy needs no model: a summary message and the last two messages.
 * - `rewrite`: prints "editing <sha of the conversation> <sha of the
 *   rewritten prefix> <its length>", rewrites the round's question A (the
 *   host's D-Mail: the history up to it, then the edited question, which
 *   the model answers), prints "edited".
 *
 * Hashes are of each message's role and content. Runs on the built packages
 * (`@kosong/soul` resolves to dist).
 */
import { createHash } from "node:crypto";
import { SimpleToolset, userMessage, type Message } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { Context, Soul, type Compaction } from "@kosong/soul";

const sha = (messages: readonly Message[]) => createHash("sha256").update(JSON.stringify(messages.map((m) => [m.role, m.content]))).digest("hex");

let round = 0;
const summary = (history: readonly Message[]): Message[] => [userMessage(`summary of ${history.length} messages, round ${round}`), ...history.slice(-2)];
const strategy: Compaction = {
  name: "summary-and-last-two",
  compact: async (history) => ({ messages: summary(history), usage: null }),
};

const context = new Context(process.argv[2]!);
await context.restore();
const mode = process.argv[3];
if (mode !== "compact" && mode !== "rewrite") throw new Error(`usage: history-edit-child.ts FILE compact|rewrite (got ${mode})`);
const provider = new ScriptedChatProvider([]);
const soul = new Soul({
  agent: { name: "history-edit-crash", systemPrompt: "You see your history edited a lot.", toolset: new SimpleToolset([]) },
  provider,
  context,
  compaction: strategy,
  config: { retry: { initialDelayMs: 0, maxDelayMs: 0, jitterMs: 0, maxRetryAfterMs: 0 } },
});

const answer = (text: string) => `text: answer to ${text} ${"x".repeat(2000)}\nusage: input_other=100 output=5`;

async function turn(text: string): Promise<void> {
  provider.push(answer(text));
  await soul.run(text).result;
}

await turn("warm-up");
process.stdout.write("ready\n");
for (;;) {
  round += 1;
  const question = `round ${round}, question A`;
  await turn(question);
  await turn(`round ${round}, question B`);
  if (mode === "compact") {
    const after = summary(context.history);
    process.stdout.write(`editing ${sha(context.history)} ${sha(after)} ${after.length}\n`);
    await soul.compact().result;
  } else {
    const index = context.history.findLastIndex((m) => m.role === "user" && m.content.some((p) => p.type === "text" && p.text === question));
    const edited = `${question} (edited)`;
    const prefix = [...context.history.slice(0, index), userMessage(edited)];
    process.stdout.write(`editing ${sha(context.history)} ${sha(prefix)} ${prefix.length}\n`);
    provider.push(answer(edited));
    await soul.rewrite(index, edited).result;
  }
  process.stdout.write("edited\n");
}
