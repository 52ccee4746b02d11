/**
 * The rule every strategy ends with: a compaction never grows the context.
 * When what a strategy made holds more tokens than the history it was given
 * (a summary with its heading longer than a tiny history, a notice bigger
 * than the one message it replaces), the history is returned unchanged,
 * with a note.
 */
import type { Message } from "@kosong/core";
import type { Budget } from "./budget-options.js";
import type { CompactionResult } from "./compaction.js";

/**
 * `result`, or the `history` unchanged (with `result`'s usage and a note)
 * when `result` holds more tokens than `history` by `budget`'s counter.
 * `budget.maxTokens` decides `withinBudget` then (pass null for a strategy
 * without one).
 */
export function neverLonger(history: readonly Message[], result: CompactionResult, counting: Budget, budget: Budget | null): CompactionResult {
  const before = counting.counter.count(history);
  const after = counting.counter.count(result.messages);
  if (after <= before) return result;
  const notes = [...(result.details?.notes ?? []), `The compaction would have grown the context (${after} tokens for ${before}); the history is kept as it was.`];
  const within = budget === null ? undefined : before <= budget.maxTokens;
  if (budget !== null && !within) notes.push(`The budget of ${budget.maxTokens} tokens cannot be met.`);
  return {
    messages: [...history],
    usage: result.usage,
    details: {
      kept: history.length,
      dropped: 0,
      stubs: 0,
      filesRecovered: [],
      summarized: false,
      notes,
      ...(result.details?.rejectedSummaries === undefined ? {} : { rejectedSummaries: result.details.rejectedSummaries }),
      ...(budget === null ? {} : { tokensAfter: Math.ceil(before * budget.scale), withinBudget: within }),
    },
  };
}
