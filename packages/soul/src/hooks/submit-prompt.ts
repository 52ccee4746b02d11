/**
 * The UserPromptSubmit hook as a turn runs it: before the user's message
 * enters the context, a hook may block it or add context for the model.
 */
import { extractText, type Message } from "@kosong/core";
import type { UserInput } from "../events/events.js";
import type { Emit, SoulRuntime } from "../loop/runtime.js";
import { callHook } from "./call-hook.js";
import { HookBlockedError } from "../errors.js";

/**
 * The message to append for `input`: `message`, with the hook's additional
 * context as a text part after the user's.
 * @throws HookBlockedError when the hook blocks the prompt (nothing is written).
 */
export async function submitPrompt(rt: SoulRuntime, emit: Emit, input: UserInput, message: Message): Promise<Message> {
  const outcome = await callHook("UserPromptSubmit", rt.hooks.userPromptSubmit?.bind(rt.hooks), { prompt: extractText(message, "\n"), input }, emit);
  if (outcome?.block !== undefined) throw new HookBlockedError("UserPromptSubmit", outcome.block);
  const extra = outcome?.additionalContext?.trim();
  if (!extra) return message;
  return { ...message, content: [...message.content, { type: "text", text: `<system>Hook context: ${extra}</system>` }] };
}
