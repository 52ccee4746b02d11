/**
 * The visible checkpoint message, `<system>CHECKPOINT n</system>`: the user
 * message kimi-cli writes after a checkpoint when D-Mail is on, so the model
 * knows which checkpoint it may send a D-Mail to.
 */
import { checkpointMarkerId, checkpointMarkerText } from "@kosong/context/records";
import type { Message } from "@kosong/core";

/** The visible message of checkpoint `id`. */
export function checkpointMessage(id: number): Message {
  return { role: "user", content: [{ type: "text", text: checkpointMarkerText(id) }] };
}

/** The id of a visible checkpoint message (a user message of that one text part), null for any other message. */
export function checkpointMessageId(message: Message | undefined): number | null {
  const part = message?.content[0];
  if (message?.role !== "user" || message.content.length !== 1 || part?.type !== "text") return null;
  return checkpointMarkerId(part.text);
}
