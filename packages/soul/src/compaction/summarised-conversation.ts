/**
 * How the summarising strategies assemble their output: the system messages
 * of the summarised part, one summary message, and the verbatim tail, which
 * grows backwards into whatever room the summary leaves (a short summary
 * never costs recent messages that fit), fitted to the budget.
 */
import { extractText, type Message } from "@kosong/core";
import { conversationBlocks } from "../conversation/index.js";
import type { Budget } from "./budget-options.js";
import { type FitResult, fitCompacted } from "./fit-to-budget.js";
import { addShown, condensedNewestFirst, condensedNote, condensedOutput, ShownLines } from "./repeated-lines.js";
import { summaryMessage } from "./summary-request.js";

/**
 * `[system messages before start, summary of text, history from start on]`,
 * with the tail extended block by block backwards (stopping at a system
 * message) while the whole fits the budget, then fitted by
 * {@link fitCompacted}. Without a budget the tail stays as it is. With
 * `keepSystem` false, system messages before `start` count as summarised.
 *
 * With a budget, the tail's older tool outputs give up the lines its newer
 * ones show again (see `condensedRepeats`), which makes room for more of the
 * conversation verbatim. A condensed output never points at an output the
 * result does not keep as it was: when the fitting gives up (drops or stubs)
 * an output that one refers to, the tail is fitted as it was instead, and
 * condensed after the fitting, against what that keeps.
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
  if (budget === null) {
    const kept = system.length + history.length - from;
    return { messages: [...system, summary, ...tail], tokens: 0, details: { kept, dropped: start - system.length, stubs: 0, filesRecovered: [], summarized: true, notes: [...notes] } };
  }
  const { counter, maxTokens } = budget;
  const count = (message: Message): number => counter.message(message);
  // Each condensed form, with the output it condenses. The tail is condensed, and so is each older block it grows by.
  const forms = new Map<Message, Message>();
  const later = new ShownLines();
  const condensed = (messages: readonly Message[]): Message[] => {
    const out = condensedNewestFirst(messages, later, count);
    for (const [k, message] of out.entries()) if (message !== messages[k]) forms.set(message, messages[k]!);
    return out;
  };
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
  const summarised = from - system.length;
  const compacted = [...system, summary, ...tail];
  const fit = fitCompacted(history, compacted, system.length + 1, summarised, notes, budget);
  const unchanged = fit.messages.length === compacted.length && fit.messages.every((message, k) => message === compacted[k]);
  if (unchanged || pointsOnlyAtKept(fit.messages, forms, count)) return withCondensedCount(fit, forms);
  return fitCompacted(history, [...system, summary, ...history.slice(from)], system.length + 1, summarised, notes, budget, { condenseRepeats: true });
}

/**
 * True when each condensed form of `forms` that `messages` holds is what
 * condensing its output against the newer tool outputs of `messages` gives:
 * the outputs it was condensed against are all kept as they were.
 */
function pointsOnlyAtKept(messages: readonly Message[], forms: ReadonlyMap<Message, Message>, count: (message: Message) => number): boolean {
  const later = new ShownLines();
  for (let k = messages.length - 1; k >= 0; k--) {
    const message = messages[k]!;
    const output = forms.get(message);
    if (output !== undefined && extractText(condensedOutput(output, later, count) ?? output, "\n") !== extractText(message, "\n")) return false;
    addShown(later, message);
  }
  return true;
}

/** `fit` with the condensed forms of `forms` that its messages keep counted in its details, with a note. */
function withCondensedCount(fit: FitResult, forms: ReadonlyMap<Message, Message>): FitResult {
  const condensed = fit.messages.filter((message) => forms.has(message)).length;
  if (condensed === 0) return fit;
  return { ...fit, details: { ...fit.details, condensed, notes: [...fit.details.notes, condensedNote(condensed)] } };
}
