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
import { condensedNewestFirst, condensedNote, hasCondensedRepeats, ShownLines } from "./repeated-lines.js";
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
  let tail = history.slice(start);
  if (budget !== null) {
    const { counter, maxTokens } = budget;
    // The tail's older tool outputs give up the lines its newer ones show again (see condensedRepeats), and so does each
    // older block it grows by, counted as condensed: the room that makes goes to more of the conversation verbatim.
    const later = new ShownLines();
    const condensed = (messages: readonly Message[]): Message[] => condensedNewestFirst(messages, later, (m) => counter.message(m));
    tail = condensed(tail);
    let used = counter.count(system) + counter.message(summary) + counter.count(tail);
    for (const block of conversationBlocks(history.slice(0, start)).reverse()) {
      if (block.role === "system") break;
      const messages = condensed(history.slice(block.start, block.end));
      const size = counter.count(messages);
      if (used + size > maxTokens) break;
      used += size;
      from = block.start;
      tail = [...messages, ...tail];
    }
  }
  const summarised = from - system.length;
  const messages = [...system, summary, ...tail];
  if (budget !== null) return withCondensedCount(history, fitCompacted(history, messages, system.length + 1, summarised, notes, budget));
  const kept = system.length + history.length - from;
  return { messages, tokens: 0, details: { kept, dropped: summarised, stubs: 0, filesRecovered: [], summarized: true, notes: [...notes] } };
}

/** `fit` with the tool outputs of its messages that were condensed (not in `history` as they were) counted in its details, with a note. */
function withCondensedCount(history: readonly Message[], fit: FitResult): FitResult {
  const original = new Set(history);
  const condensed = fit.messages.filter((message) => !original.has(message) && hasCondensedRepeats(message)).length;
  if (condensed === 0) return fit;
  return { ...fit, details: { ...fit.details, condensed, notes: [...fit.details.notes, condensedNote(condensed)] } };
}
