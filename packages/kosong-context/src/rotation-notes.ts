/**
 * The notes of a context file's rotations: one JSON line per note in
 * `<file>.branches` beside the file (`context.jsonl.branches`, as the lock
 * is `context.jsonl.lock`: no context file, kimi-cli ignores it),
 * `{"n":3,"size":1234,"note":{...}}`. Appended
 * (and synced) by the file's writer; the last line for a number wins. The
 * file is data from disk: a damaged line, a wrong shape or an oversized file
 * only loses notes, never a rotation.
 */
import { open, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { hasCode, modeOf } from "./durable-fs.js";
import { parseRotationNote, type RotationNote } from "./rotation-note.js";

/** Past this size the notes file is not read (its rotations are listed without notes). */
const MAX_NOTES_BYTES = 32 * 1024 * 1024;

/** A stored note, with the size of the rotation it was written for. */
export interface StoredRotationNote {
  size: number;
  note: RotationNote;
}

/** The path of the notes file of `file`. */
export function rotationNotesPath(file: string): string {
  return `${path.resolve(file)}.branches`;
}

/** The notes of `file`'s rotations by number (empty without a notes file). */
export async function readRotationNotes(file: string): Promise<Map<number, StoredRotationNote>> {
  const notes = new Map<number, StoredRotationNote>();
  const where = rotationNotesPath(file);
  let text: string;
  try {
    if ((await stat(where)).size > MAX_NOTES_BYTES) return notes;
    text = await readFile(where, "utf8");
  } catch (error) {
    if (hasCode(error, "ENOENT", "EISDIR")) return notes;
    throw error;
  }
  for (const line of text.split("\n")) {
    if (line.length === 0) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const { n, size, note } = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
    const parsed = parseRotationNote(note);
    if (parsed !== null && Number.isSafeInteger(n) && Number.isSafeInteger(size)) notes.set(n as number, { size: size as number, note: parsed });
  }
  return notes;
}

/**
 * Appends the note of rotation `n` (of `size` bytes) and syncs it. A line
 * torn by an earlier crash is ended first, so it spoils only itself. A new
 * notes file gets the permission bits of `file`.
 */
export async function appendRotationNote(file: string, n: number, size: number, note: RotationNote): Promise<void> {
  const handle = await open(rotationNotesPath(file), "a+", await modeOf(file));
  try {
    const { size: length } = await handle.stat();
    const last = Buffer.alloc(1);
    const torn = length > 0 && (await handle.read(last, 0, 1, length - 1)).bytesRead === 1 && last[0] !== 10;
    await handle.appendFile(`${torn ? "\n" : ""}${JSON.stringify({ n, size, note })}\n`);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}
