/**
 * Compaction as the loop runs it: when to, and how the result replaces the
 * context (through one `clear()` with the compacted conversation as its
 * `then`, so a crash leaves the old conversation or the compacted one, and
 * `restoreRotation` can undo it).
 */
import { isRetryable, type Message } from "@kosong/core";
import { type Compaction, type CompactionDetails, type CompactionResult, checkCompaction } from "../compaction/index.js";
import { agingCompaction, TOOL_RESULT_AGING } from "../recall/aging-compaction.js";
import { withCompactionPointers } from "../recall/compaction-pointers.js";
import type { MessageRange } from "../recall/index.js";
import { nextRotation } from "../recall/next-rotation.js";
import { type ContextUsage, contextUsage, estimateTokens } from "../tokens/index.js";
import type { SoulConfig } from "./config.js";
import { callWithRetries } from "./call-with-retries.js";
import { checkpointMessageId } from "../context/index.js";
import { announceCheckpoint } from "./checkpoint.js";
import { spliceRange } from "./compaction-range.js";
import { SoulError } from "../errors.js";
import type { CompactionReason } from "../events/events.js";
import type { Emit, SoulRuntime } from "./runtime.js";
import type { CompactionOutcome } from "./turn.js";
import type { LogRotation } from "@kosong/context";
import { callHook } from "../hooks/call-hook.js";
import { droppedRanges } from "../recall/dropped-ranges.js";

/**
 * The usage of a context of `tokens` under the soul's two triggers
 * (`compactionTriggerRatio` and `reservedContextSize`, whichever comes
 * first); null when the window size is unknown.
 */
export function soulContextUsage(tokens: number, config: SoulConfig): ContextUsage | null {
  const max = config.maxContextSize;
  if (max === null || !Number.isFinite(max)) return null;
  return contextUsage(tokens, max, { triggerRatio: config.compactionTriggerRatio, reservedContextSize: config.reservedContextSize });
}

/** True when a context of `tokens` must be compacted before the next call. */
export function needsCompaction(tokens: number, config: SoulConfig): boolean {
  return soulContextUsage(tokens, config)?.compactionDue ?? false;
}

/** Options of {@link compactContext}. */
export interface CompactContextOptions {
  reason: CompactionReason;
  /** The step number for `StepRetry` events of the strategy's LLM call (0 outside a turn). */
  step: number;
  instruction?: string;
  signal?: AbortSignal;
  /** Compact only these messages of the history (range compaction); the rest stays as it is. */
  range?: MessageRange;
}

/** Below this share of the threshold, tool-result aging has made enough room to skip a full compaction. */
const AGING_TARGET = 0.7;

/**
 * Compacts the context with the soul's strategy (its LLM call retried like a
 * step's), makes the result a valid conversation (`checkCompaction`: a
 * strategy's invalid output is repaired, each repair a note in the details)
 * and replaces the context with it in one step of the log (a crash leaves
 * the old conversation or the compacted one, never an empty one): `clear()`
 * (the old conversation becomes a rotation) writing the system prompt, a
 * checkpoint and the compacted messages (with D-Mail on, without the visible checkpoint
 * messages of the old conversation; the fresh checkpoint's message leads).
 * Checkpoint ids go on from the old conversation's (the fresh one gets the
 * next id; the old ids are gone, so a D-Mail to one is refused rather than
 * sent somewhere else), and every label of the old conversation's
 * checkpoints keeps resolving: to the compacted conversation as written
 * (a checkpoint after its messages), so `context.revertTo(label)` after a
 * compaction goes back to the compaction's result. A strategy that returned the history unchanged
 * (nothing to compact) changes nothing. Emits `CompactionBegin` and
 * `CompactionEnd`.
 *
 * With `Recall` in the toolset, the compacted conversation ends with a
 * pointer notice naming the ranges it replaced (in the room the compaction
 * made), and an automatic compaction first tries tool-result aging, which
 * replaces it when it brings the context under 70 % of the threshold.
 * With `range`, only those messages are given to the strategy.
 * @throws SoulError when the soul has no compaction strategy; the strategy's
 *   error when it fails (the context is then unchanged, and no `CompactionEnd` follows).
 */
export async function compactContext(rt: SoulRuntime, emit: Emit, options: CompactContextOptions): Promise<CompactionOutcome> {
  const strategy = rt.compaction;
  if (strategy === null) throw new SoulError("Compaction is disabled for this soul (it was created with `compaction: null`).");
  const { context } = rt;
  const tokensBefore = context.tokenCountWithPending;
  const history = [...context.history];
  const rotation = rt.recallEnabled ? await nextRotation(context) : null;
  const aged = rotation === null || options.range !== undefined ? null : agedInstead(rt, history, rotation, options.reason);
  const strategyName = aged === null ? strategy.name : TOOL_RESULT_AGING;
  const about = { trigger: options.reason, strategy: strategyName, tokensBefore, messages: history.length, ...(options.instruction !== undefined && { instruction: options.instruction }) };
  await callHook("PreCompact", rt.hooks.preCompact?.bind(rt.hooks), about, emit);
  emit({ type: "CompactionBegin", payload: { reason: options.reason, strategy: strategyName } });
  const { result } = checkCompaction(aged ?? (await strategyResult(rt, strategy, history, emit, options)));
  let details = result.details ?? null;
  // Where the old conversation is kept, for the PostCompact hook.
  let keptIn: LogRotation | null = null;
  // A compaction never grows the context: a result larger than the history (a repaired one, a custom strategy's) changes nothing.
  const [resultTokens, historyTokens] = [estimateTokens(result.messages), estimateTokens(history)];
  const grows = resultTokens > historyTokens;
  if (grows) details = withNotes(details, [`The compacted conversation (${resultTokens} tokens) would be larger than the ${historyTokens} it replaces; nothing changed.`]);
  if (!grows && !sameMessages(result.messages, history)) {
    let compacted = result.messages;
    const notes: string[] = [];
    if (rotation !== null && aged === null) {
      const pointed = withCompactionPointers(history, compacted, rotation);
      compacted = pointed.messages;
      if (pointed.notice !== null) notes.push(`Left recall pointers to ${pointed.ranges.length} replaced range${pointed.ranges.length === 1 ? "" : "s"} of rotation ${rotation}.`);
    }
    const systemPrompt = context.systemPrompt ?? rt.agent.systemPrompt;
    // With D-Mail on, kept checkpoint messages would name checkpoints the clear removed.
    const messages = rt.dmailEnabled ? compacted.filter((m) => checkpointMessageId(m) === null) : compacted;
    // Ids go on from the old ones (an id the model saw never names another point), and labels keep resolving.
    const labels = [...new Set(context.checkpoints.flatMap((c) => (c.label === undefined ? [] : [c.label])))];
    const cleared = await context.clear({
      firstCheckpointId: context.nCheckpoints,
      kind: "compaction",
      then: { systemPrompt, checkpoint: { addUserMessage: rt.dmailEnabled }, messages, labels },
    });
    if (rotation !== null && cleared.n !== rotation) notes.push(`The recall pointers name rotation ${rotation}, but the old conversation was kept as rotation ${cleared.n}.`);
    if (notes.length > 0) details = withNotes(details, notes);
    announceCheckpoint(rt, emit, cleared.newCheckpoint);
    keptIn = { n: cleared.n, location: cleared.location };
  }
  const outcome: CompactionOutcome = { tokensBefore, tokensAfter: context.tokenCountWithPending, details, usage: result.usage };
  emit({ type: "CompactionEnd", payload: { tokens_before: tokensBefore, tokens_after: outcome.tokensAfter, details: outcome.details } });
  const dropped = keptIn === null ? [] : droppedRanges(history, result.messages);
  const after = { tokensAfter: outcome.tokensAfter, messagesAfter: context.history.length, details: outcome.details, rotation: keptIn, dropped };
  await callHook("PostCompact", rt.hooks.postCompact?.bind(rt.hooks), { ...about, ...after }, emit);
  return outcome;
}

/** The strategy's compaction of the history (or of `options.range` of it, spliced back in). */
async function strategyResult(rt: SoulRuntime, strategy: Compaction, history: Message[], emit: Emit, options: CompactContextOptions): Promise<CompactionResult> {
  const { context } = rt;
  const range = options.range;
  const part = range === undefined ? history : history.slice(range.from, range.to);
  const compactOptions = {
    provider: rt.compactionProvider ?? undefined,
    signal: options.signal,
    instruction: options.instruction,
    explicit: options.reason === "manual",
    files: rt.session.files,
    readFile: rt.readFile,
    // Budgets are in the provider's tokens: strategies calibrate their estimate against its last count (which covers a range only from the start).
    ...(range === undefined || range.from === 0 ? { providerCount: { inputTokens: context.tokenCount, messages: Math.min(context.tokenCountMessages, part.length) } } : {}),
    // A retryable model error is retried while retries are left; then the strategy falls back instead of failing.
    throwModelError: (error: unknown) => isRetryable(error) && attempts <= rt.config.maxRetriesPerStep,
  };
  let attempts = 0;
  const attempt = (): Promise<CompactionResult> => {
    attempts++;
    return strategy.compact(part, compactOptions);
  };
  const compacted = await callWithRetries(attempt, options.step, rt.config, emit, options.signal);
  return range === undefined ? compacted : spliceRange(history, range, compacted);
}

/** Tool-result aging in place of an automatic compaction, when it makes enough room (see {@link agingCompaction}). */
function agedInstead(rt: SoulRuntime, history: readonly Message[], rotation: number, reason: CompactionReason): CompactionResult | null {
  const aging = rt.config.toolResultAging;
  const usage = soulContextUsage(rt.context.tokenCountWithPending, rt.config);
  if (aging === null || reason === "manual" || usage === null) return null;
  return agingCompaction(history, rotation, usage.used, Math.floor(usage.threshold * AGING_TARGET), aging);
}

function withNotes(details: CompactionDetails | null, notes: readonly string[]): CompactionDetails {
  const base = details ?? { kept: 0, dropped: 0, stubs: 0, filesRecovered: [], summarized: false, notes: [] };
  return { ...base, notes: [...base.notes, ...notes] };
}

function sameMessages(a: readonly Message[], b: readonly Message[]): boolean {
  return a.length === b.length && a.every((message, i) => message === b[i]);
}
