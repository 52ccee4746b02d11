/**
 * One step of a turn: prepare (compaction check, the step's batch with its
 * checkpoint), call (the LLM with retries, tools dispatched by core's
 * `step`), act (commit the batch: checkpoint, token count, messages, one
 * write), finalize (rejection, D-Mail, whether to go on).
 */
import {
  abortError,
  APIContextOverflowError,
  ChatProviderError,
  inputTokens,
  step,
  sumTokenUsage,
  type StepResult,
  type TokenUsage,
  type ToolResult,
} from "@kosong/core";
import { callWithRetries } from "./call-with-retries.js";
import { compactContext, needsCompaction } from "./compact-context.js";
import { deliverDMail } from "../dmail/dmail.js";
import type { Emit, SoulRuntime } from "./runtime.js";
import { openStepBatch, type StepBatch } from "./step-batch.js";
import { requestHistory } from "../context/context.js";
import { stepMessages } from "./step-messages.js";
import { partEvent, toolCallEvent, toolResultEvent } from "../events/stream-events.js";
import { ToolRejectedError } from "../approval/tool-rejected-error.js";
import type { TurnTools } from "./turn-tools.js";

/** What the turn does after a step. */
export type StepOutcome = "continue" | "no_tool_calls" | "tool_rejected";

/**
 * Runs step `n` with the turn's `tools`. Adds the usage of its LLM calls to `usage`. Rejects with an
 * AbortError when `signal` aborted (after the context grew, when the abort
 * came while tools ran), or with the error that ended the step (the step's
 * checkpoint is written then, without the rest of the step).
 */
export async function runStep(rt: SoulRuntime, emit: Emit, n: number, usage: TokenUsage, tools: TurnTools, signal?: AbortSignal): Promise<StepOutcome> {
  emit({ type: "StepBegin", payload: { n } });
  const { context } = rt;
  if (rt.compaction !== null && requestHistory(context).length > 0 && needsCompaction(context.tokenCountWithPending, rt.config)) {
    addUsage(usage, (await compactContext(rt, emit, { reason: "auto", step: n, signal })).usage);
  }
  const batch = await openStepBatch(rt, emit);
  let result: StepResult;
  let results: ToolResult[];
  try {
    result = await callStep(rt, emit, batch, n, usage, tools, signal);
    results = await result.toolResults();
  } catch (error) {
    // The step's error wins over a failure to write its checkpoint.
    await batch.settle().catch(() => undefined);
    throw error;
  }
  addUsage(usage, result.usage);
  await batch.commit({ messages: stepMessages(result.message, results, tools.notRun), ...(result.usage !== null && { tokenCount: inputTokens(result.usage) }) });
  emitStatus(rt, emit, result);
  if (signal?.aborted) throw abortError(signal);
  return finishStep(rt, emit, result, results);
}

/** The LLM call with retries; a context overflow compacts once and calls once more. */
async function callStep(rt: SoulRuntime, emit: Emit, batch: StepBatch, n: number, usage: TokenUsage, tools: TurnTools, signal?: AbortSignal): Promise<StepResult> {
  // A failed attempt's usage (reported before it failed) counts too.
  const attempt = (): Promise<StepResult> =>
    step(rt.provider, rt.context.systemPrompt ?? rt.agent.systemPrompt, tools.toolset, batch.history(), {
      onMessagePart: (part) => emit(partEvent(part)),
      onToolCall: (call) => emit(toolCallEvent(call)),
      onToolResult: (result) => emit(toolResultEvent(result, tools.notRun)),
      signal,
      toolContext: tools.toolContext,
      cancelGraceMs: rt.config.cancelGraceMs,
      timeouts: rt.config.llmTimeouts,
    }).catch((error: unknown) => {
      if (ChatProviderError.isInstance(error)) addUsage(usage, error.usage);
      throw error;
    });
  try {
    return await callWithRetries(attempt, n, rt.config, emit, signal);
  } catch (error) {
    if (rt.compaction === null || !APIContextOverflowError.isInstance(error) || signal?.aborted) throw error;
    // The compaction keeps the log it replaces as a rotation, the step's checkpoint in it.
    await batch.settle();
    addUsage(usage, (await compactContext(rt, emit, { reason: "overflow", step: n, signal })).usage);
    return callWithRetries(attempt, n, rt.config, emit, signal);
  }
}

/** Rejection and D-Mail: decides whether the turn goes on. */
async function finishStep(rt: SoulRuntime, emit: Emit, result: StepResult, results: readonly ToolResult[]): Promise<StepOutcome> {
  const rejections = results.flatMap((r) => (ToolRejectedError.isInstance(r.return_value) ? [r.return_value] : []));
  const dmail = rt.session.denwaRenji.fetchPendingDMail();
  if (rejections.some((r) => r.feedback === "")) return "tool_rejected";
  if (dmail !== null && rejections.length === 0) {
    await deliverDMail(rt, emit, dmail);
    return "continue";
  }
  return result.toolCalls.length > 0 ? "continue" : "no_tool_calls";
}

function emitStatus(rt: SoulRuntime, emit: Emit, result: StepResult): void {
  const tokens = rt.context.tokenCountWithPending;
  const max = rt.config.maxContextSize;
  emit({
    type: "StatusUpdate",
    payload: { context_usage: max === null ? null : tokens / max, context_tokens: tokens, max_context_tokens: max, token_usage: result.usage, message_id: result.id },
  });
}

/** Adds `usage` (if any) to `into`. */
export function addUsage(into: TokenUsage, usage: TokenUsage | null): void {
  if (usage !== null) Object.assign(into, sumTokenUsage(into, usage));
}
