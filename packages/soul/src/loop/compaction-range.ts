/**
 * Range compaction (`soul.compact({ from, to })`): only the messages
 * between two checkpoints are compacted; those before and after stay as
 * they are.
 */
import type { Message } from "@kosong/core";
import { type CompactionResult, extractiveSummary, summaryMessage } from "../compaction/index.js";
import { CheckpointNotFoundError, type Context } from "../context/index.js";
import type { MessageRange } from "../recall/index.js";
import { charsPerTokenTokenizer, estimateTokens } from "../tokens/index.js";
import { SoulError } from "../errors.js";

/** The part of the conversation a range compaction works on, by checkpoint ids. */
export interface CompactRange {
  /** The checkpoint the range starts at (its messages from there on). */
  from: number;
  /** The checkpoint the range ends before; default: the end of the conversation. */
  to?: number;
}

/** A summary of an extractive fallback takes at most this share of the range it replaces. */
const FALLBACK_SHARE = 0.25;

/**
 * The messages `range` covers in `context.history`.
 * @throws CheckpointNotFoundError for an id that is not a checkpoint of the context.
 * @throws SoulError when `to` does not come after `from` or the range holds no message.
 */
export function checkpointRange(context: Context, range: CompactRange): MessageRange {
  const checkpoints = context.checkpoints;
  const at = (id: number): number => {
    const found = checkpoints.find((c) => c.id === id);
    if (found === undefined) throw new CheckpointNotFoundError(id, checkpoints.map(({ id, label }) => (label === undefined ? { id } : { id, label })));
    return found.messageCount;
  };
  const from = at(range.from);
  const to = range.to === undefined ? context.history.length : at(range.to);
  if (to <= from) throw new SoulError(`Cannot compact from checkpoint ${range.from}${range.to === undefined ? "" : ` to checkpoint ${range.to}`}: the range holds no message.`);
  return { from, to };
}

/**
 * The whole history with `range` replaced by `compacted` (the strategy's
 * output for that part). When the strategy kept the part as it was (it
 * fitted the strategy's budget), an extractive summary of it replaces it,
 * with a note; unless the summary would not be smaller than the part (a
 * range of a few short messages): then the history stays as it is (a
 * compaction never grows the context), with a note saying why.
 */
export function spliceRange(history: readonly Message[], range: MessageRange, compacted: CompactionResult): CompactionResult {
  const part = history.slice(range.from, range.to);
  const unchanged = compacted.messages.length === part.length && compacted.messages.every((m, i) => m === part[i]);
  let middle = compacted.messages;
  let details = compacted.details;
  if (unchanged) {
    const partTokens = estimateTokens(part);
    const maxTokens = Math.max(64, Math.floor(partTokens * FALLBACK_SHARE));
    const summary = extractiveSummary(part, { maxTokens, tokenizer: charsPerTokenTokenizer });
    middle = [summaryMessage([{ type: "text", text: summary === "" ? "(nothing to keep)" : summary }])];
    if (estimateTokens(middle) >= partTokens) {
      const note = `The range is too short to compact: its ${part.length} messages take fewer tokens than a summary of them would; nothing changed.`;
      return { ...compacted, messages: [...history], details: { kept: history.length, dropped: 0, stubs: 0, filesRecovered: [], summarized: false, notes: [note] } };
    }
    const note = "The strategy kept the range whole: an extractive summary replaced it.";
    details = { kept: 0, dropped: part.length, stubs: 0, filesRecovered: [], summarized: true, notes: [note] };
  }
  const messages = [...history.slice(0, range.from), ...middle, ...history.slice(range.to)];
  return details === undefined ? { ...compacted, messages } : { ...compacted, messages, details };
}
