/**
 * When each checkpoint of a session was made. The conversation file keeps
 * kimi-cli's format (its checkpoint records carry no time), so the CLI keeps
 * the times beside it, in the session folder's `checkpoint-times.jsonl`
 * (0600): one line per checkpoint made, `{"id":…,"at":…,"messages":…}`,
 * the time and how many messages came before the checkpoint. A checkpoint
 * appends its one line (the soul makes one per prompt and per step, so a
 * step pays for its own line, not for the whole session's times); past
 * {@link MAX_CHECKPOINT_TIME_LINES} lines the file is replaced atomically
 * by the newest {@link MAX_CHECKPOINT_TIMES} times. Ids are reused after a
 * revert, so a later line of an id replaces an earlier one; a time is given
 * for a checkpoint only when its message count still matches (a rotation
 * restored later may hold another checkpoint of that id). A missing,
 * damaged, oversized or irregular file (a FIFO, a link) is a session whose
 * times are unknown, never an error: a damaged line (any line not as this
 * module writes it) loses its own time only, a last line without its
 * newline (a save cut short) is ignored. The times of sessions saved
 * before, in `checkpoint-times.json` (one JSON object by id), are read
 * too, and moved to the new file at the first save.
 */
import { constants } from "node:fs";
import { open, rm } from "node:fs/promises";
import path from "node:path";
import { lazySchema } from "@kosong/core";
import * as z from "zod";
import { readCappedFile } from "../files/read-capped-file.js";
import { replaceFile } from "../files/replace-file.js";

/** The file's name in the session folder. */
export const checkpointTimesFile = "checkpoint-times.jsonl";

/** The file sessions saved before kept their times in (read, then removed at the first save). */
export const legacyCheckpointTimesFile = "checkpoint-times.json";

/** The most times kept: a long session makes checkpoints for as long as it runs (their ids go on across compactions). */
export const MAX_CHECKPOINT_TIMES = 8_000;

/**
 * Lines the file grows to before it is replaced by the newest
 * {@link MAX_CHECKPOINT_TIMES} times: a replacement every 2,000 checkpoints
 * at most, and a file never much longer to read than the times it keeps.
 */
export const MAX_CHECKPOINT_TIME_LINES = MAX_CHECKPOINT_TIMES + MAX_CHECKPOINT_TIMES / 4;

/** Files larger than this are ignored (times unknown) rather than read: far above the longest sound file. */
const maxFileBytes = 4 * 1024 * 1024;
/** The same for the old file (its sound size stayed well under this). */
const maxLegacyFileBytes = 1024 * 1024;

const entrySchema = lazySchema(() => z.object({ at: z.iso.datetime(), messages: z.int().nonnegative() }));
/** A line of the file: as {@link lineOf} writes it, an id of at most 9 digits, the time as `Date.toISOString` gives it. */
const soundLine = /^\{"id":(\d{1,9}),"at":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)","messages":(\d{1,15})\}$/;
type Entry = z.infer<ReturnType<typeof entrySchema>>;

/** A checkpoint as the context lists it. */
export interface CheckpointRef {
  id: number;
  messageCount: number;
}

/** What a session folder held. */
interface SavedTimes {
  entries: Map<number, Entry>;
  /** Lines of `checkpoint-times.jsonl`, damaged ones included. */
  lines: number;
  /** The next save replaces the file (the old file is there, or the file is damaged at its end, oversized or not a regular file). */
  replace: boolean;
}

/** The checkpoint times of one session. */
export class CheckpointTimes {
  readonly #dir: string | null;
  readonly #entries: Map<number, Entry>;
  #lines: number;
  #replace: boolean;
  #writing: Promise<void> = Promise.resolve();

  private constructor(dir: string | null, saved: SavedTimes) {
    this.#dir = dir;
    this.#entries = saved.entries;
    this.#lines = saved.lines;
    this.#replace = saved.replace;
  }

  /**
   * The times kept in `dir` (a session folder), or times kept in memory
   * only when `dir` is null (a conversation file run without a session).
   */
  static async open(dir: string | null): Promise<CheckpointTimes> {
    if (dir === null) return new CheckpointTimes(null, { entries: new Map(), lines: 0, replace: false });
    return new CheckpointTimes(dir, await readSavedTimes(dir));
  }

  /** When `checkpoint` was made, or null when that is not known. */
  timeOf(checkpoint: CheckpointRef): Date | null {
    const entry = this.#entries.get(checkpoint.id);
    return entry !== undefined && entry.messages === checkpoint.messageCount ? new Date(entry.at) : null;
  }

  /**
   * Records that `checkpoint` was made at `at` (replacing what an earlier
   * checkpoint of the same id left) and saves it: one line appended, or the
   * file replaced when it has grown past its bound. A failed save is
   * reported to `onError` and leaves the times in memory (the next save
   * then replaces the file).
   */
  async record(checkpoint: CheckpointRef, at: Date, onError: (error: unknown) => void = () => undefined): Promise<void> {
    const entry = { at: at.toISOString(), messages: checkpoint.messageCount };
    setNewest(this.#entries, checkpoint.id, entry);
    dropOldest(this.#entries);
    const dir = this.#dir;
    if (dir === null) return;
    const line = lineOf(checkpoint.id, entry);
    // Saves run one after the other, so the lines are in the order the checkpoints were made.
    this.#writing = this.#writing.then(() =>
      this.#save(dir, line).catch((error: unknown) => {
        this.#replace = true;
        onError(error);
      }),
    );
    await this.#writing;
  }

  async #save(dir: string, line: string): Promise<void> {
    const file = path.join(dir, checkpointTimesFile);
    if (!this.#replace && this.#lines < MAX_CHECKPOINT_TIME_LINES) {
      await appendLine(file, line);
      this.#lines++;
      return;
    }
    await replaceFile(file, [...this.#entries].map(([id, entry]) => lineOf(id, entry)).join(""));
    this.#lines = this.#entries.size;
    this.#replace = false;
    await rm(path.join(dir, legacyCheckpointTimesFile), { force: true });
  }
}

/** Sets `id`'s entry as the newest (a reused id moves last). */
function setNewest(entries: Map<number, Entry>, id: number, entry: Entry): void {
  entries.delete(id);
  entries.set(id, entry);
}

/** Drops the oldest entries past {@link MAX_CHECKPOINT_TIMES}, in one pass. */
function dropOldest(entries: Map<number, Entry>): Map<number, Entry> {
  let excess = entries.size - MAX_CHECKPOINT_TIMES;
  for (const id of entries.keys()) {
    if (excess-- <= 0) break;
    entries.delete(id);
  }
  return entries;
}

function lineOf(id: number, entry: Entry): string {
  return `${JSON.stringify({ id, ...entry })}\n`;
}

async function readSavedTimes(dir: string): Promise<SavedTimes> {
  const legacy = await readRegularFile(path.join(dir, legacyCheckpointTimesFile), maxLegacyFileBytes);
  const entries = legacy.kind === "read" ? legacyEntries(legacy.text) : new Map<number, Entry>();
  const saved = await readRegularFile(path.join(dir, checkpointTimesFile), maxFileBytes);
  // A new session's first save is then one append, like any later one (not a replace of a file that is not there).
  if (saved.kind !== "read") return { entries: dropOldest(entries), lines: 0, replace: legacy.kind !== "missing" || saved.kind !== "missing" };
  const lines = saved.text.split("\n");
  // What follows the last newline: nothing, or a line a save did not finish.
  const tail = lines.pop();
  for (const line of lines) {
    // Only a line as `lineOf` writes it is sound (matched whole: cheaper than parsing thousands of lines as JSON).
    const sound = soundLine.exec(line);
    if (sound !== null && !Number.isNaN(Date.parse(sound[2]!))) setNewest(entries, Number(sound[1]), { at: sound[2]!, messages: Number(sound[3]) });
  }
  return { entries: dropOldest(entries), lines: lines.length, replace: legacy.kind !== "missing" || tail !== "" };
}

/** The old file's times: one object by id; each entry on its own, so one damaged entry loses only its own time. */
function legacyEntries(text: string): Map<number, Entry> {
  const entries = new Map<number, Entry>();
  const raw = parseJson(text);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return entries;
  for (const [key, value] of Object.entries(raw)) {
    const entry = entrySchema().safeParse(value);
    if (/^\d{1,9}$/.test(key) && entry.success) setNewest(entries, Number(key), entry.data);
  }
  return entries;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The text of `file` when it is a regular file (not a link) of at most
 * `maxBytes`; else whether there is none or it cannot be read (see
 * {@link readCappedFile}).
 */
async function readRegularFile(file: string, maxBytes: number): Promise<{ kind: "read"; text: string } | { kind: "missing" | "unreadable" }> {
  const read = await readCappedFile(file, maxBytes, { followLinks: false });
  return read.kind === "read" ? { kind: "read", text: read.bytes.toString("utf8") } : { kind: read.kind === "missing" ? "missing" : "unreadable" };
}

/** Appends `line` to `file` (made 0600 when missing) with one write; refuses anything but a regular file, without waiting on a FIFO. */
async function appendLine(file: string, line: string): Promise<void> {
  const handle = await open(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK | constants.O_NOFOLLOW, 0o600);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new Error(`${file} is not a regular file`);
    if ((info.mode & 0o777) !== 0o600) await handle.chmod(0o600);
    await handle.write(line);
  } finally {
    await handle.close();
  }
}
