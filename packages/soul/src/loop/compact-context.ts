/**
 * Compaction as the loop runs it: when to, and how the result replaces the
 * context (through one `clear()` with the compacted conversation as its
 * `then`, so a crash leaves the old conversation or the compacted one, and
 * `restoreRotation` can undo it).
 */
import { isRetryable, type Message } from "@kosong/core";
import { type CompactionResult, checkCompaction } from "../compaction/index.js";
import { type ContextUsage, contextUsage } from "../tokens/index.js";
import type { SoulConfig } from "./config.js";
import { callWithRetries } from "./call-with-retries.js";
import { checkpointMessageId } from "../context/index.js";
import { announceCheckpoint } from "./checkpoint.js";
import { SoulError } from "../errors.js";
import type { CompactionReason } from "../events/events.js";
import type { Emit, SoulRuntime } from "./runtime.js";
import type { CompactionOutcome } from "./turn.js";
import { callHook } from "../hooks/call-hook.js";
import type { MessageRange } from "../hooks/soul-hooks.js";
import type { LogRotation } from "@kosong/context";

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
}

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
 * @throws SoulError when the soul has no compaction strategy; the strategy's
 *   error when it fails (the context is then unchanged, and no `CompactionEnd` follows).
 */
export async function compactContext(rt: SoulRuntime, emit: Emit, options: CompactContextOptions): Promise<CompactionOutcome> {
  const strategy = rt.compaction;
  if (strategy === null) throw new SoulError("Compaction is disabled for this soul (it was created with `compaction: null`).");
  const { context } = rt;
  const tokensBefore = context.tokenCountWithPending;
  const history = [...context.history];
  const about = { trigger: options.reason, strategy: strategy.name, tokensBefore, messages: history.length, ...(options.instruction !== undefined && { instruction: options.instruction }) };
  await callHook("PreCompact", rt.hooks.preCompact?.bind(rt.hooks), about, emit);
  emit({ type: "CompactionBegin", payload: { reason: options.reason, strategy: strategy.name } });
  const compactOptions = {
    provider: rt.compactionProvider ?? undefined,
    signal: options.signal,
    instruction: options.instruction,
    explicit: options.reason === "manual",
    files: rt.session.files,
    readFile: rt.readFile,
    // Budgets are in the provider's tokens: strategies calibrate their estimate against its last count.
    providerCount: { inputTokens: context.tokenCount, messages: context.tokenCountMessages },
    // A retryable model error is retried while retries are left; then the strategy falls back instead of failing.
    throwModelError: (error: unknown) => isRetryable(error) && attempts <= rt.config.maxRetriesPerStep,
  };
  let attempts = 0;
  const attempt = (): Promise<CompactionResult> => {
    attempts++;
    return strategy.compact(history, compactOptions);
  };
  const compacted = await callWithRetries(attempt, options.step, rt.config, emit, options.signal);
  const { result } = checkCompaction(compacted);
  let rotation: LogRotation | null = null;
  if (!sameMessages(result.messages, history)) {
    const systemPrompt = context.systemPrompt ?? rt.agent.systemPrompt;
    // With D-Mail on, kept checkpoint messages would name checkpoints the clear removed.
    const messages = rt.dmailEnabled ? result.messages.filter((m) => checkpointMessageId(m) === null) : result.messages;
    // Ids go on from the old ones (an id the model saw never names another point), and labels keep resolving.
    const labels = [...new Set(context.checkpoints.flatMap((c) => (c.label === undefined ? [] : [c.label])))];
    const cleared = await context.clear({
      firstCheckpointId: context.nCheckpoints,
      then: { systemPrompt, checkpoint: { addUserMessage: rt.dmailEnabled }, messages, labels },
    });
    announceCheckpoint(rt, emit, cleared.newCheckpoint);
    rotation = { n: cleared.n, location: cleared.location };
  }
  const outcome: CompactionOutcome = { tokensBefore, tokensAfter: context.tokenCountWithPending, details: result.details ?? null, usage: result.usage };
  emit({ type: "CompactionEnd", payload: { tokens_before: tokensBefore, tokens_after: outcome.tokensAfter, details: outcome.details } });
  const after = { tokensAfter: outcome.tokensAfter, messagesAfter: context.history.length, details: outcome.details, rotation };
  await callHook("PostCompact", rt.hooks.postCompact?.bind(rt.hooks), { ...about, ...after, dropped: rotation === null ? [] : droppedRanges(history, result.messages) }, emit);
  return outcome;
}

/** The index ranges of `before` whose messages `after` does not hold (a summary replaces them). */
function droppedRanges(before: readonly Message[], after: readonly Message[]): MessageRange[] {
  const kept = new Set(after);
  const ranges: MessageRange[] = [];
  before.forEach((message, i) => {
    if (kept.has(message)) return;
    const last = ranges.at(-1);
    if (last !== undefined && last.to === i) last.to = i + 1;
    else ranges.push({ from: i, to: i + 1 });
  });
  return ranges;
}

function sameMessages(a: readonly Message[], b: readonly Message[]): boolean {
  return a.length === b.length && a.every((message, i) => message === b[i]);
}
