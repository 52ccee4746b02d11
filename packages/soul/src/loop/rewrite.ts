/**
 * The host's D-Mail ("edit history and regenerate"): a past user
 * message or tool result is replaced and everything after it dropped, the
 * dropped part kept as a rotation.
 */
import type { ContentPart, Message } from "@kosong/core";
import { isEmptyMessage } from "../conversation/index.js";
import { checkpointMessageId } from "../context/index.js";
import { announceCheckpoint } from "./checkpoint.js";
import { RewriteTargetError } from "../errors.js";
import type { Emit, SoulRuntime } from "./runtime.js";

/** What replaces a message: a whole message of the same role, or just new content. */
export type Replacement = Message | string | ContentPart[];

/**
 * The messages that follow the kept prefix `history[0, index)`: the
 * replacement, then, when it replaces one result of a parallel call, the
 * other results of that call that came after it (so every call keeps
 * exactly one result).
 * @throws RewriteTargetError for an index outside the history, an assistant
 *   or system message, or a replacement of another role or tool call, or an
 *   empty user message.
 */
export function rewrittenTail(history: readonly Message[], index: number, replacement: Replacement): Message[] {
  const target = history[index];
  if (!Number.isInteger(index) || target === undefined) {
    throw new RewriteTargetError(index, `the history has ${history.length} messages (indexes 0 to ${history.length - 1})`);
  }
  if (target.role !== "user" && target.role !== "tool") {
    throw new RewriteTargetError(index, `it is ${target.role === "assistant" ? "an assistant" : "a system"} message; only user messages and tool results can be rewritten`);
  }
  const message = replacementMessage(target, index, replacement);
  if (isEmptyMessage(message)) throw new RewriteTargetError(index, "the replacement is empty");
  if (target.role === "user") return [message];
  const tail = [message];
  for (let i = index + 1; history[i]?.role === "tool"; i++) tail.push(history[i]!);
  return tail;
}

function replacementMessage(target: Message, index: number, replacement: Replacement): Message {
  if (typeof replacement === "string") return withContent(target, [{ type: "text", text: replacement }]);
  if (Array.isArray(replacement)) return withContent(target, replacement);
  if (replacement.role !== target.role) throw new RewriteTargetError(index, `the replacement is a ${replacement.role} message, the original a ${target.role} message`);
  if (target.role === "tool" && replacement.tool_call_id !== undefined && replacement.tool_call_id !== target.tool_call_id) {
    throw new RewriteTargetError(index, `the replacement answers tool call ${replacement.tool_call_id}, the original ${String(target.tool_call_id)}`);
  }
  return target.role === "tool" ? { ...replacement, tool_call_id: target.tool_call_id! } : replacement;
}

function withContent(target: Message, content: ContentPart[]): Message {
  return target.role === "tool" ? { role: "tool", content, tool_call_id: target.tool_call_id! } : { role: target.role, content };
}

/**
 * Applies a rewrite: reverts to the last checkpoint at or before `index` (or
 * clears the context, keeping its system prompt, when there is none), makes
 * that checkpoint again, and appends the messages between it and `index`
 * followed by `tail`, as one step of the log: a crash leaves the history
 * before the rewrite or after it, never reverted without the edit. Emits
 * `Reverted`, then `CheckpointCreated`.
 */
export async function applyRewrite(rt: SoulRuntime, emit: Emit, index: number, tail: readonly Message[]): Promise<void> {
  const { context } = rt;
  const checkpoint = context.checkpoints.findLast((c) => c.messageCount <= index);
  const kept = context.history.slice(checkpoint?.messageCount ?? 0, index);
  if (checkpoint === undefined) {
    const systemPrompt = context.systemPrompt ?? undefined;
    await context.clear({ then: { systemPrompt, messages: [...kept, ...tail] }, kind: "rewrite" });
    emit({ type: "Reverted", payload: { checkpoint_id: null, reason: "rewrite" } });
    return;
  }
  const visible = checkpointMessageId(kept[0]) === checkpoint.id;
  if (visible) kept.shift();
  const then = { checkpoint: { label: checkpoint.label, addUserMessage: visible }, messages: [...kept, ...tail] };
  const { newCheckpoint, files } = await context.revertTo(checkpoint.id, { then, kind: "rewrite" });
  emit({ type: "Reverted", payload: { checkpoint_id: checkpoint.id, reason: "rewrite", ...(files && { files }) } });
  announceCheckpoint(rt, emit, newCheckpoint);
}
