/**
 * What a session store lists about each session, and the first prompt
 * found in a session's record lines (shared by the file and Postgres stores).
 */
import { extractText } from "@kosong/core";
import { checkpointMarkerId } from "./checkpoint-marker.js";
import { decodeRecordLine } from "./context-record.js";

/** One session as a store lists it. */
export interface SessionSummary {
  /** The session id. */
  id: string;
  /** Bytes of the current log (rotations not counted). */
  size: number;
  /** How many rotations (older versions kept by reverts and compactions) it has. */
  rotations: number;
  /** When it was last written (for a Postgres session: its last append or whole-log operation, or its last open). */
  updatedAt: Date;
  /** The text of its first user message (from its oldest rotation, else the current log), at most 200 characters; null before one. */
  firstPrompt: string | null;
}

/** The longest first prompt a summary carries. */
export const FIRST_PROMPT_MAX_CHARS = 200;

/**
 * The first prompt among record `lines`: the text of the first user message
 * that is not a checkpoint marker (`<system>CHECKPOINT n</system>`), cut to
 * {@link FIRST_PROMPT_MAX_CHARS} with "...". Damaged lines are skipped.
 */
export function firstPromptIn(lines: Iterable<string>): string | null {
  for (const line of lines) {
    const decoded = decodeRecordLine(line);
    if (!decoded.ok || decoded.record.kind !== "message" || decoded.record.message.role !== "user") continue;
    const text = extractText(decoded.record.message, "\n").trim();
    if (text === "" || checkpointMarkerId(text) !== null) continue;
    return text.length > FIRST_PROMPT_MAX_CHARS ? `${text.slice(0, FIRST_PROMPT_MAX_CHARS - 3)}...` : text;
  }
  return null;
}
