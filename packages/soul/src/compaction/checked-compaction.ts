/**
 * What the soul does with every compaction's output before it replaces the
 * context: check that it is a valid conversation, repair it when it is not,
 * and say so in the details.
 */
import { type ConversationRules, repairConversation } from "../conversation/index.js";
import type { CompactionDetails, CompactionResult } from "./compaction.js";

/** A compaction result made valid, and what was wrong with it (empty when nothing was). */
export interface CheckedCompaction {
  result: CompactionResult;
  violations: ReturnType<typeof repairConversation>["violations"];
}

/**
 * `result` with its messages repaired by {@link repairConversation} when
 * they are not a valid conversation; each violation becomes a note in the
 * details (created when the strategy reported none).
 */
export function checkCompaction(result: CompactionResult, rules: ConversationRules = {}): CheckedCompaction {
  const { messages, violations } = repairConversation(result.messages, rules);
  if (violations.length === 0) return { result, violations };
  const details: CompactionDetails = result.details ?? { kept: 0, dropped: 0, stubs: 0, filesRecovered: [], summarized: false, notes: [] };
  const notes = [...details.notes, ...violations.map((v) => `Repaired the compacted conversation: ${v.message}`)];
  return { result: { ...result, messages, details: { ...details, notes } }, violations };
}
