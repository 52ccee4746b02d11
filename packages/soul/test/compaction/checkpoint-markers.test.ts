import { type ChatProvider, textPart, assistantMessage, toolCall, toolMessage, userMessage, type Message } from "@kosong/core";
import { MockChatProvider, ScriptedChatProvider } from "@kosong/core/testing";
import {
  AUTO_SUMMARY_SECTIONS,
  AutoCompaction,
  type Compaction,
  PreserveImportantCompaction,
  SimpleCompaction,
  SmartCompaction,
} from "@kosong/soul/compaction";
import { validateConversation } from "@kosong/soul/conversation";
import { TokenCounter } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";

/** The visible checkpoint message the soul writes with D-Mail on. */
const checkpointMessage = (id: number): Message => userMessage(`<system>CHECKPOINT ${id}</system>`);

/** A D-Mail session: each turn ends with the model's answer, then the soul's visible checkpoint marker before the next request. */
function dmailHistory(): { history: Message[]; answer: Message; request: Message } {
  const history: Message[] = [userMessage("Find why the parser drops nested quotes.")];
  for (let i = 0; i < 6; i++) {
    history.push(checkpointMessage(2 * i));
    history.push(assistantMessage(`Reading part ${i}.`, [toolCall(`c${i}`, "Shell", { command: `cat src/parser/part${i}.ts` })]));
    history.push(toolMessage(`c${i}`, `export function part${i}(input: string) {\n  return input.split('"');\n}\n`.repeat(30)));
    history.push(checkpointMessage(2 * i + 1));
  }
  const answer = assistantMessage("The bug is in part5: split('\"') ignores escaped quotes; parseQuoted in part3 must handle them.");
  const request = userMessage("Good, now write the fix.");
  history.push(answer, checkpointMessage(12), request);
  return { history, answer, request };
}

const summary = "text: The user asked why the parser drops nested quotes; the files of src/parser were read.";
const autoSummary = AUTO_SUMMARY_SECTIONS.map((section) => `## ${section}\nThe parser in src/parser was read.`).join("\n");
const counter = new TokenCounter();

describe("checkpoint markers are not the messages a strategy keeps", () => {
  const { history, answer, request } = dmailHistory();
  const maxTokens = Math.floor(counter.count(history) / 3);
  const cases: Array<[string, () => Compaction, () => ChatProvider | undefined]> = [
    ["simple with a model (kimi-cli's last 2 messages)", () => new SimpleCompaction(), () => new ScriptedChatProvider([summary])],
    ["simple without a model", () => new SimpleCompaction(), () => undefined],
    ["simple with a budget", () => new SimpleCompaction({ maxTokens }), () => new ScriptedChatProvider([summary])],
    ["auto with a model", () => new AutoCompaction({ maxTokens }), () => new MockChatProvider([textPart(autoSummary)])],
    ["auto, summariser failing (its fallback)", () => new AutoCompaction({ maxTokens }), () => new ScriptedChatProvider([])],
    ["smart keeping 2", () => new SmartCompaction({ maxTokens, keepRecent: 2 }), () => undefined],
    ["preserve-important keeping 2", () => new PreserveImportantCompaction({ maxTokens, keepRecent: 2 }), () => undefined],
  ];

  it.each(cases)("%s: the model's last answer and the new request stay verbatim", async (_, strategy, provider) => {
    const result = await strategy().compact(history, { provider: provider() });
    expect(result.messages).toContain(answer);
    expect(result.messages.at(-1)).toBe(request);
    expect(validateConversation(result.messages)).toEqual([]);
  });
});
