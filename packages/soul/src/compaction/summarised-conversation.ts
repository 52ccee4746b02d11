/**
 * How the summarising strategies assemble their output: the system messages
 * of the summarised part, one summary message, and the verbatim tail, which
 * grows backwards into whatever room the summary leaves (a short summary
 * never costs recent messages that fit), fitted to the budget.
 */
import type { Message } from "@kosong/core";
import { conversationBlocks } from "../conversation/index.js";
import type { Budget } from "./budget-options.js";
import { type FitResult, fitCompacted } from "./fit-to-budget.js";
import { summaryMessage } from "./summary-request.js";

/**
 * `[system messages before start, summary of text, history from start on]`,
 * with the tail extended block by block backwards (stopping at a system
 * message) while the whole fits the budget, then fitted by
 * {@link fitCompacted}. Without a budget the tail stays as it is. With
 * `keepSystem` false, system messages before `start` count as summarised.
 */
export function summarisedConversation(
  history: readonly Message[],
  start: number,
  text: string,
  budget: Budget | null,
  notes: readonly string[],
  keepSystem = true,
): FitResult {
  const system = keepSystem ? history.slice(0, start).filter((m) => m.role === "system") : [];
  const summary = summaryMessage([{ type: "text", text: text === "" ? "(nothing to keep)" : text }]);
  let from = start;
  if (budget !== null) {
    const { counter, maxTokens } = budget;
    let used = counter.count(system) + counter.message(summary) + counter.count(history.slice(start));
    for (const block of conversationBlocks(history.slice(0, start)).reverse()) {
      if (block.role === "system") break;
      const size = counter.count(history.slice(block.start, block.end));
      if (used + size > maxTokens) break;
      used += size;
      from = block.start;
    }
  }
  const summarised = from - system.length;
  const messages = [...system, summary, ...history.slice(from)];
  if (budget !== null) return fitCompacted(history, messages, system.length + 1, summarised, notes, budget);
  const kept = system.length + history.length - from;
  return { messages, tokens: 0, details: { kept, dropped: summarised, stubs: 0, filesRecovered: [], summarized: true, notes: [...notes] } };
}
