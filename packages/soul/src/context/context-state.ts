/**
 * What a {@link Context} knows, as one immutable value, and the pure steps
 * that make the next value: a step planned (its records and what they
 * change), then applied once the log has taken the records and said where
 * each one starts. The `Context` (context.ts) is the sequencer around it: it
 * orders the operations, writes the log, drives the file journal, and
 * replaces its state with the value a step returns.
 */
import { createHash } from "node:crypto";
import type { Message } from "@kosong/core";
import type { ContextLogState, LogCheckpoint, LogPosition } from "@kosong/context";
import {
  checkpointRecord,
  messageRecord,
  parsedMessageRecord,
  systemPromptRecord,
  usageRecord,
  type ContextRecord,
  type MessageRecord,
} from "@kosong/context/records";
import { checkpointMessage } from "./checkpoint-message.js";
import { findUnansweredTailCalls, type UnansweredToolCalls } from "./unanswered-tool-calls.js";

/** A checkpoint with the state just before it: what reverting to it restores. */
export type Mark = LogCheckpoint;

/** The state a revert or a clear goes back to, and where in the log it ends. */
export type Base = Omit<Mark, "id" | "label">;

/** The state of an empty log: what a clear goes back to. */
export const EMPTY_BASE: Base = { position: 0, messageCount: 0, tokenCount: 0, messagesBeforeLastUsage: 0, systemPrompt: null, nextCheckpointId: 0 };

/** Estimates the tokens of messages (see `ContextOptions.estimateTokens`). */
export type EstimateTokens = (messages: readonly Message[]) => number;

/**
 * Everything the context knows. Never changed, each operation makes a new
 * one, but for two things: a step appends its messages and its checkpoints
 * to the history and checkpoint arrays it shares with the state before it
 * (see {@link applyStep}).
 */
export interface ContextState {
  /**
   * The conversation, oldest first. Append-only while its state is the
   * context's: a step appends to it in place (the state before the step,
   * which the context drops, then sees the step's messages too); every
   * other operation makes a new array. A caller outside gets copies
   * (`Context.history`).
   */
  readonly history: readonly Message[];
  /**
   * The checkpoints that can be reverted to, oldest first, each with its
   * position in the log. Append-only while its state is the context's, as
   * {@link history} is: a step appends to it in place, every other
   * operation makes a new array. A caller outside gets copies
   * (`Context.checkpoints`).
   */
  readonly marks: readonly Mark[];
  /** The last token count (0 without one). */
  readonly tokenCount: number;
  /** How many messages preceded the last `_usage` record. */
  readonly usageAt: number;
  /** The estimated tokens of the messages after the last token count. */
  readonly pending: number;
  readonly systemPrompt: string | null;
  /** The id the next checkpoint gets. */
  readonly nextCheckpointId: number;
  /** True when the log holds no record. */
  readonly empty: boolean;
}

/** The state before the log is read (its history and checkpoints frozen: they are never appended to, the log is read first). */
export const INITIAL_STATE: ContextState = { history: Object.freeze([]), marks: Object.freeze([]), tokenCount: 0, usageAt: 0, pending: 0, systemPrompt: null, nextCheckpointId: 0, empty: true };

/** What a step asks for (the union of `ContextStep` and `ClearContinuation`, see context.ts). */
export interface StepRequest {
  checkpoint?: true | { addUserMessage?: boolean; label?: string };
  tokenCount?: number;
  messages?: readonly Message[];
  systemPrompt?: string;
  labels?: readonly string[];
}

/** A checkpoint planned: a {@link Mark} but for its position, known once its record is written. */
type PlannedMark = Omit<Mark, "position">;

/** A change of the state, in the order of the records that make it. */
type Effect = { messages: readonly Message[] } | { tokenCount: number } | { mark: PlannedMark; at: number };

/** The records of a step and the changes they make once written. */
export interface PlannedStep {
  readonly records: ContextRecord[];
  readonly effects: readonly Effect[];
  /** The checkpoint the step asked for (`checkpoint`), null without one. */
  readonly first: PlannedMark | null;
  /** The last checkpoint planned (which sets the next id). */
  readonly last: PlannedMark | null;
  readonly systemPrompt: string | null;
}

/** The state a log's content folds to (before its unanswered tool calls are answered). */
export function stateOfLog(log: ContextLogState, estimate: EstimateTokens): ContextState {
  const history = log.messages.slice();
  return {
    history,
    marks: log.checkpoints.map((c) => ({ ...c })),
    tokenCount: log.tokenCount,
    usageAt: log.messagesBeforeLastUsage,
    pending: estimate(history.slice(log.messagesBeforeLastUsage)),
    systemPrompt: log.systemPrompt,
    nextCheckpointId: log.nextCheckpointId,
    empty: log.report.records === 0,
  };
}

/** The state at a checkpoint (or, for a clear, an empty log), keeping the first `keptMarks` checkpoints. */
export function stateAt(state: ContextState, base: Base, keptMarks: number, estimate: EstimateTokens): ContextState {
  const history = state.history.slice(0, base.messageCount);
  return {
    history,
    marks: state.marks.slice(0, keptMarks),
    tokenCount: base.tokenCount,
    usageAt: base.messagesBeforeLastUsage,
    pending: estimate(history.slice(base.messagesBeforeLastUsage)),
    systemPrompt: base.systemPrompt,
    nextCheckpointId: base.nextCheckpointId,
    empty: base.position === 0,
  };
}

/**
 * The records written after `base` (a state, or a checkpoint's state) and
 * what they change: with `answerTail`, the interrupted results of tool calls
 * the kept history (the first `base.messageCount` messages of `history`)
 * leaves unanswered; then the system prompt, the checkpoint and its visible
 * message, the token count, the messages (validated copies), and the
 * checkpoints of the labels.
 */
export function planStep(history: readonly Message[], base: Omit<Base, "position">, step: StepRequest, answerTail = false): PlannedStep {
  const records: ContextRecord[] = [];
  const effects: Effect[] = [];
  const marks: PlannedMark[] = [];
  const systemPrompt = step.systemPrompt ?? base.systemPrompt;
  let { messageCount, tokenCount, messagesBeforeLastUsage, nextCheckpointId } = base;
  /** Adds `messages`, written as `made` (by default records of them as they are). */
  const add = (messages: readonly Message[], made: readonly MessageRecord[] = messages.map(messageRecord)): void => {
    if (messages.length === 0) return;
    records.push(...made);
    effects.push({ messages });
    messageCount += messages.length;
  };
  const checkpoint = (options: { addUserMessage?: boolean; label?: string }): void => {
    const id = nextCheckpointId++;
    // The state just before it.
    const mark: PlannedMark = { id, messageCount, tokenCount, systemPrompt, nextCheckpointId: id, messagesBeforeLastUsage };
    if (options.label !== undefined) mark.label = options.label;
    marks.push(mark);
    effects.push({ mark, at: records.length });
    records.push(checkpointRecord(id, options.label));
    if (options.addUserMessage === true) add([checkpointMessage(id)]);
  };
  if (answerTail) add(findUnansweredTailCalls(history.slice(0, base.messageCount)).flatMap((found) => found.results));
  if (step.systemPrompt !== undefined) records.push(systemPromptRecord(step.systemPrompt));
  if (step.checkpoint !== undefined) checkpoint(step.checkpoint === true ? {} : step.checkpoint);
  if (step.tokenCount !== undefined) {
    records.push(usageRecord(step.tokenCount));
    effects.push({ tokenCount: step.tokenCount });
    tokenCount = step.tokenCount;
    messagesBeforeLastUsage = messageCount;
  }
  // Validated copies, parsed once: the records write the very copies the history keeps.
  const parsed = (step.messages ?? []).map(parsedMessageRecord);
  add(parsed.map((record) => record.message), parsed);
  for (const label of step.labels ?? []) checkpoint({ label });
  const first = step.checkpoint === undefined ? null : (marks[0] ?? null);
  return { records, effects, first, last: marks.at(-1) ?? null, systemPrompt };
}

/**
 * The state after `planned`, written where `positions` say (where each of its
 * records starts). The messages and the checkpoints are appended to
 * `state`'s history and checkpoint arrays in place, so a step costs what it
 * adds, not a copy of the conversation or of its checkpoints (a session
 * makes one per step): `state` is the context's current state, which the
 * context replaces with the result, and nothing outside the context holds
 * those arrays (callers get copies, `Context.history` and
 * `Context.checkpoints`; a request borrows the history for its call only).
 */
export function applyStep(state: ContextState, planned: PlannedStep, positions: readonly LogPosition[], estimate: EstimateTokens): ContextState {
  const history = state.history as Message[];
  const marks = state.marks as Mark[];
  let { tokenCount, usageAt, pending } = state;
  for (const effect of planned.effects) {
    if ("messages" in effect) {
      for (const message of effect.messages) history.push(message);
      pending += estimate(effect.messages);
    } else if ("tokenCount" in effect) {
      tokenCount = effect.tokenCount;
      usageAt = history.length;
      pending = 0;
    } else {
      marks.push({ ...effect.mark, position: positions[effect.at]! });
    }
  }
  const nextCheckpointId = planned.last === null ? state.nextCheckpointId : planned.last.id + 1;
  return { history, marks, tokenCount, usageAt, pending, systemPrompt: planned.systemPrompt, nextCheckpointId, empty: state.empty && planned.records.length === 0 };
}

/** `state` with `messages` appended (written elsewhere: the interrupted results of a restore). */
export function withMessages(state: ContextState, messages: readonly Message[], estimate: EstimateTokens): ContextState {
  return { ...state, history: [...state.history, ...messages], pending: state.pending + estimate(messages), empty: false };
}

/**
 * `state` with the interrupted results of `found` (calls that the history
 * goes on after) inserted in memory right after each call, the checkpoints
 * after them shifted so that a revert keeps each call with its result.
 */
export function withResultsInserted(state: ContextState, found: readonly UnansweredToolCalls[]): ContextState {
  if (found.length === 0) return state;
  const history = state.history.slice();
  let usageAt = state.usageAt;
  const marks = state.marks.map((mark) => ({ ...mark }));
  for (const { index, results } of found.toReversed()) {
    history.splice(index, 0, ...results);
    if (usageAt >= index) usageAt += results.length;
    for (const mark of marks) {
      if (mark.messageCount >= index) mark.messageCount += results.length;
      if (mark.messagesBeforeLastUsage >= index) mark.messagesBeforeLastUsage += results.length;
    }
  }
  return { ...state, history, usageAt, marks };
}

/** `state` after a system prompt was written before everything else: the checkpoints moved by `shift`, and they now all follow it. */
export function withPromptPrepended(state: ContextState, prompt: string, shift: number): ContextState {
  const marks = state.marks.map((mark) => ({ ...mark, position: mark.position + shift, systemPrompt: mark.systemPrompt ?? prompt }));
  return { ...state, marks, systemPrompt: prompt, empty: false };
}

/**
 * A digest of the conversation (history, checkpoints, system prompt): tells
 * the file journal whether a step of the log happened. It is the SHA-256 of
 * `JSON.stringify([history, marks, systemPrompt])` (journals keep it across
 * versions), fed a message at a time so that the whole history is never
 * one string.
 */
export function fingerprintOf(state: ContextState): string {
  const marks = state.marks.map((m) => [m.id, m.messageCount, m.label ?? null]);
  const hash = createHash("sha256").update("[[");
  state.history.forEach((message, i) => hash.update(i === 0 ? JSON.stringify(message) : `,${JSON.stringify(message)}`));
  return hash.update(`],${JSON.stringify(marks)},${JSON.stringify(state.systemPrompt)}]`).digest("hex");
}
