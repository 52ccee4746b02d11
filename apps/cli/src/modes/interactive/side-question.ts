/**
 * `/btw <question>`: a side question answered by a fork of the conversation
 * as it stands (its history and system prompt, at the last checkpoint),
 * with no tools run, so the conversation itself is not changed, not even a
 * byte of its file. The answer can be kept as a branch (a rotation that
 * `/tree` lists and jumps to).
 */
import { generate, userMessage, type Message } from "@kosong/core";
import { addUsage } from "../../render/status-line.js";
import { priceOf } from "../../pricing/model-prices.js";
import { visibleControls } from "../../render/visible-controls.js";
import type { InteractiveSession } from "./interactive-session.js";

/**
 * Asks `question` beside the conversation and shows the streamed answer
 * (control characters made visible); Ctrl-C or Esc aborts it. Then asks
 * whether to keep the question and answer as a branch.
 */
export async function askSideQuestion(s: InteractiveSession, question: string): Promise<void> {
  const { context, soul, providers } = s.agent;
  const asked = userMessage(question);
  // Tool definitions go along only when the history holds tool calls (some APIs require them then); none is run.
  const tools = context.history.some((m) => (m.tool_calls?.length ?? 0) > 0) ? soul.agent.toolset.tools : [];
  const controller = new AbortController();
  const stopWatching = s.input.watchTurn({ interrupt: () => controller.abort(), escape: () => void controller.abort(), line: () => undefined });
  s.print(s.style.dim("btw: answered beside the conversation, which stays as it is"));
  let answer: Message;
  try {
    const result = await generate(providers.main, context.systemPrompt ?? soul.agent.systemPrompt, tools, [...context.history, asked], {
      signal: controller.signal,
      onMessagePart: (part) => {
        if (part.type === "text") s.out.write(visibleControls(part.text));
      },
    });
    answer = result.message;
    if (result.usage) s.tokens = addUsage(s.tokens, result.usage, priceOf(providers.main.modelName, s.agent.settings.prices));
  } catch (error) {
    s.print();
    if (controller.signal.aborted) s.print(s.style.dim("btw aborted; the conversation is unchanged."));
    else s.printError(error);
    return;
  } finally {
    stopWatching();
  }
  s.print();
  if ((answer.tool_calls?.length ?? 0) > 0) s.print(s.style.dim("(the answer asked for tools; /btw runs none)"));
  const reply = await s.input.readLine("Keep this answer as a branch? [y/N] ", { remember: false });
  if (!(reply.kind === "line" && /^y(es)?$/i.test(reply.text.trim()))) return s.print(s.style.dim("Not kept; the conversation is unchanged."));
  const { tool_calls: _, ...kept } = answer;
  const branch = await context.addBranch([asked, kept], { kind: "btw" });
  s.print(`Kept as branch ${branch.n}; the conversation is unchanged. /tree ${branch.n} switches to it.`);
}
