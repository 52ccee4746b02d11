/**
 * What a rotation is as a branch of the conversation, stored with it: what
 * made it, where it leaves the log that stayed current, how long it is and
 * its first prompt after that point. The soul's `Context` writes it
 * ({@link ContextLog.annotateRotation}); `Context.branches()` builds the
 * branch tree from the notes alone, without reading a rotation.
 */
import { InvalidRecordError } from "./errors.js";

/** A rotation's note (see {@link ContextLog.annotateRotation}). */
export interface RotationNote {
  /**
   * What made the rotation, for people: `"revert"`, `"dmail"`, `"rewrite"`,
   * `"clear"`, `"compaction"`, `"restore"` (the log a restore replaced),
   * `"btw"` (a side question kept as a branch), or another short word.
   */
  kind: string;
  /** The checkpoint of the rotation at which it leaves the log that was current right after it was made; null when they share no checkpoint. */
  checkpoint: number | null;
  /** How many messages it shares with the log that was current right after it was made. */
  sharedMessages: number;
  /** How many messages it holds. */
  messages: number;
  /** Its first user prompt after the shared messages (at most {@link MAX_NOTE_PROMPT} characters), null without one. */
  firstPrompt: string | null;
}

/** The longest first prompt a note keeps, in characters. */
export const MAX_NOTE_PROMPT = 200;
const MAX_KIND = 32;

function count(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/**
 * A validated copy of `value` as a note (the prompt shortened to
 * {@link MAX_NOTE_PROMPT}), or null when it is not one: a note read back from
 * storage is data from disk or a server, never trusted.
 */
export function parseRotationNote(value: unknown): RotationNote | null {
  if (typeof value !== "object" || value === null) return null;
  const { kind, checkpoint, sharedMessages, messages, firstPrompt } = value as Record<string, unknown>;
  if (typeof kind !== "string" || kind.length === 0 || kind.length > MAX_KIND) return null;
  if (!(checkpoint === null || count(checkpoint)) || !count(sharedMessages) || !count(messages)) return null;
  if (!(firstPrompt === null || typeof firstPrompt === "string")) return null;
  return { kind, checkpoint, sharedMessages, messages, firstPrompt: firstPrompt === null ? null : [...firstPrompt].slice(0, MAX_NOTE_PROMPT).join("") };
}

/** {@link parseRotationNote} for a note being written: an invalid one is an `InvalidRecordError`. */
export function checkRotationNote(note: RotationNote): RotationNote {
  const parsed = parseRotationNote(note);
  if (parsed === null) throw new InvalidRecordError(`invalid rotation note: ${JSON.stringify(note)?.slice(0, 200)}`);
  return parsed;
}
