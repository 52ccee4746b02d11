/**
 * When each checkpoint of a session was made. The conversation file keeps
 * kimi-cli's format (its checkpoint records carry no time), so the CLI keeps
 * the times beside it, in the session folder's `checkpoint-times.json`
 * (0600, replaced atomically): by checkpoint id, the time and how many
 * messages came before the checkpoint. Ids are reused after a revert, so a
 * new checkpoint's time replaces the old one's; a time is given for a
 * checkpoint only when its message count still matches (a rotation restored
 * later may hold another checkpoint of that id). A missing, damaged or
 * oversized file is a session whose times are unknown, never an error; at
 * most {@link MAX_CHECKPOINT_TIMES} times are kept, the oldest dropped.
 */
import { randomBytes } from "node:crypto";
import { readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { lazySchema } from "@kosong/core";
import * as z from "zod";

/** The file's name in the session folder. */
export const checkpointTimesFile = "checkpoint-times.json";

/** Files larger than this are ignored (times unknown) rather than read. */
const maxFileBytes = 1024 * 1024;

/**
 * The most times kept: a long session makes checkpoints for as long as it
 * runs (their ids go on across compactions), and the file is rewritten at
 * each one, so the oldest times go first (well under `maxFileBytes`).
 */
export const MAX_CHECKPOINT_TIMES = 8_000;

const entrySchema = lazySchema(() => z.object({ at: z.iso.datetime(), messages: z.int().nonnegative() }));
type Entry = z.infer<ReturnType<typeof entrySchema>>;

/** A checkpoint as the context lists it. */
export interface CheckpointRef {
  id: number;
  messageCount: number;
}

/** The checkpoint times of one session. */
export class CheckpointTimes {
  readonly #file: string | null;
  readonly #entries: Map<number, Entry>;
  #writing: Promise<void> = Promise.resolve();

  private constructor(file: string | null, entries: Map<number, Entry>) {
    this.#file = file;
    this.#entries = entries;
  }

  /**
   * The times kept in `dir` (a session folder), or times kept in memory
   * only when `dir` is null (a conversation file run without a session).
   */
  static async open(dir: string | null): Promise<CheckpointTimes> {
    if (dir === null) return new CheckpointTimes(null, new Map());
    const file = path.join(dir, checkpointTimesFile);
    return new CheckpointTimes(file, await readEntries(file));
  }

  /** When `checkpoint` was made, or null when that is not known. */
  timeOf(checkpoint: CheckpointRef): Date | null {
    const entry = this.#entries.get(checkpoint.id);
    return entry !== undefined && entry.messages === checkpoint.messageCount ? new Date(entry.at) : null;
  }

  /**
   * Records that `checkpoint` was made at `at` (replacing what an earlier
   * checkpoint of the same id left) and saves the file. A failed save is
   * reported to `onError` and leaves the times in memory.
   */
  async record(checkpoint: CheckpointRef, at: Date, onError: (error: unknown) => void = () => undefined): Promise<void> {
    // Newest last (a reused id moves there): the first entries are the oldest, dropped past the limit.
    this.#entries.delete(checkpoint.id);
    this.#entries.set(checkpoint.id, { at: at.toISOString(), messages: checkpoint.messageCount });
    for (const id of this.#entries.keys()) {
      if (this.#entries.size <= MAX_CHECKPOINT_TIMES) break;
      this.#entries.delete(id);
    }
    const file = this.#file;
    if (file === null) return;
    const text = `${JSON.stringify(Object.fromEntries(this.#entries), null, 1)}\n`;
    // Saves run one after the other, so the last one written is the newest.
    this.#writing = this.#writing.then(() => replaceFile(file, text).catch(onError));
    await this.#writing;
  }
}

async function readEntries(file: string): Promise<Map<number, Entry>> {
  const entries = new Map<number, Entry>();
  try {
    if ((await stat(file)).size > maxFileBytes) return entries;
    const raw: unknown = JSON.parse(await readFile(file, "utf8"));
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return entries;
    // Each entry on its own: one damaged entry loses only its own time.
    for (const [key, value] of Object.entries(raw)) {
      const entry = entrySchema().safeParse(value);
      if (/^\d{1,9}$/.test(key) && entry.success) entries.set(Number(key), entry.data);
    }
  } catch {
    // Missing or not JSON: no times known.
  }
  return entries;
}

/** Writes `text` to a temporary file beside `file` (0600) and renames it over `file`. */
async function replaceFile(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(temporary, text, { mode: 0o600, flag: "wx" });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
