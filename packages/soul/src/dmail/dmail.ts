/**
 * The model's D-Mail as the loop delivers it: back to the checkpoint, a
 * fresh checkpoint, and the message from the future self.
 */
import type { Message } from "@kosong/core";
import type { DMail } from "./denwa-renji.js";
import { announceCheckpoint } from "../loop/checkpoint.js";
import type { Emit, SoulRuntime } from "../loop/runtime.js";

/** The user message that carries a D-Mail to the past self. */
export function dmailMessage(dmail: DMail): Message {
  const text =
    "You just got a D-Mail from your future self. Your future self may already have changed things " +
    "(files in the working directory, for instance) that this conversation does not show. Read the D-Mail " +
    "and decide what to do next. Never mention this D-Mail to the user. The D-Mail says:\n\n" +
    dmail.message.trim();
  return { role: "user", content: [{ type: "text", text: `<system>${text}</system>` }] };
}

/**
 * Reverts the context to the D-Mail's checkpoint (the reverted conversation
 * stays a rotation), makes a fresh checkpoint and appends the D-Mail, as one
 * step of the log: a crash leaves the conversation before the D-Mail or
 * after it, never reverted without it. Emits `Reverted`, then `CheckpointCreated`.
 */
export async function deliverDMail(rt: SoulRuntime, emit: Emit, dmail: DMail): Promise<void> {
  const then = { checkpoint: { addUserMessage: rt.dmailEnabled }, messages: [dmailMessage(dmail)] };
  const { newCheckpoint, files } = await rt.context.revertTo(dmail.checkpoint_id, { then, kind: "dmail" });
  emit({ type: "Reverted", payload: { checkpoint_id: dmail.checkpoint_id, reason: "dmail", ...(files && { files }) } });
  announceCheckpoint(rt, emit, newCheckpoint);
}
