/**
 * Many sessions in one folder, one subfolder per session:
 * `<dir>/<id>/context.jsonl` with its rotations (`context_N.jsonl`) beside
 * it, and room for what a host keeps with the session (the soul's file
 * journal in `<dir>/<id>/files`, say). Lists, opens and deletes them; the
 * file store's counterpart of the Postgres store's session management.
 */
import { createReadStream } from "node:fs";
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { hasCode } from "./durable-fs.js";
import { JsonlContextFile, type Durability } from "./jsonl-context-file.js";
import { listRotations } from "./rotation.js";
import { SessionLock } from "./session-lock.js";
import { firstPromptIn, type SessionSummary } from "./session-summary.js";

/** Options of {@link JsonlSessionStore}. */
export interface JsonlSessionStoreOptions {
  /** The durability of the logs it opens (default `"batch"`). */
  durability?: Durability;
  /**
   * How long (ms) a live writer may leave its session unwritten before
   * another instance may take the session over (default: never; a crashed
   * writer's session is taken over at once). The writer that lost it finds
   * out at its next write (`ContextFileChangedError` once the new writer wrote).
   */
  leaseMs?: number;
}

/** A session id: a safe folder name (letters, digits, `.`, `_`, `-`; 1-128; not `.` or `..`). */
const sessionIdPattern = /^(?!\.{1,2}$)[\w.-]{1,128}$/;

/** The file name of a session's log inside its folder. */
const LOG_NAME = "context.jsonl";

/** How many lines of a log the first prompt is looked for in. */
const FIRST_PROMPT_SCAN_LINES = 200;

/**
 * Sessions as folders under `dir`. One writer per session (the log's lock
 * file, taken over from a dead writer at once, from an idle one after
 * `leaseMs`).
 */
export class JsonlSessionStore {
  /** The folder holding the sessions. */
  readonly dir: string;
  readonly #options: JsonlSessionStoreOptions;

  constructor(dir: string, options: JsonlSessionStoreOptions = {}) {
    this.dir = path.resolve(dir);
    this.#options = { ...options };
  }

  /** The folder of session `sessionId` (for what a host keeps with it, e.g. the soul's file journal in `files/`). @throws TypeError for an id that is not a safe folder name. */
  sessionDir(sessionId: string): string {
    if (typeof sessionId !== "string" || !sessionIdPattern.test(sessionId)) {
      throw new TypeError(`a session id must be 1-128 letters, digits, ".", "_" or "-" (not "." or ".."), got ${JSON.stringify(String(sessionId)).slice(0, 80)}`);
    }
    return path.join(this.dir, sessionId);
  }

  /** The log file of session `sessionId`. */
  logFile(sessionId: string): string {
    return path.join(this.sessionDir(sessionId), LOG_NAME);
  }

  /**
   * Opens session `sessionId` for writing (its folder is created, 0700),
   * taking its lock: `SessionLockedError` when another live writer holds it
   * and has written within the lease.
   */
  async openLog(sessionId: string): Promise<JsonlContextFile> {
    const dir = this.sessionDir(sessionId);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return JsonlContextFile.open(path.join(dir, LOG_NAME), { durability: this.#options.durability, leaseMs: this.#options.leaseMs });
  }

  /** Every session (a folder holding a log), most recently written first. */
  async listSessions(): Promise<SessionSummary[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if (hasCode(error, "ENOENT")) return [];
      throw error;
    }
    const found = await Promise.all(names.filter((name) => sessionIdPattern.test(name)).map((name) => this.#summary(name)));
    return found.filter((s): s is SessionSummary => s !== null).sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || a.id.localeCompare(b.id));
  }

  /**
   * Deletes session `sessionId`: its log, its rotations and everything else
   * in its folder (the file journal's blobs included). Takes the session's
   * lock first, so a session in use is refused with `SessionLockedError`
   * (unless its writer is past the lease). Resolves to false when there was
   * no such session. The folder is renamed aside before it is removed, so a
   * crash midway never leaves a half-deleted session that still lists.
   * @param options.when Asked under the lock, just before the folder goes:
   *   false leaves the session whole and resolves to false (what made a
   *   caller choose the session may have changed before the lock was taken).
   */
  async deleteSession(sessionId: string, options: { when?: () => Promise<boolean> } = {}): Promise<boolean> {
    const dir = this.sessionDir(sessionId);
    const file = path.join(dir, LOG_NAME);
    if (!(await isFile(file))) return false;
    const lock = await SessionLock.acquire(file, { leaseMs: this.#options.leaseMs });
    const aside = path.join(this.dir, `.deleting-${sessionId}-${process.pid}`);
    try {
      if (options.when !== undefined && !(await options.when())) return false;
      await rename(dir, aside);
    } finally {
      // The lock file moved with the folder: releasing it is bookkeeping.
      await lock.release();
    }
    await rm(aside, { recursive: true, force: true });
    return true;
  }

  async #summary(id: string): Promise<SessionSummary | null> {
    const file = path.join(this.dir, id, LOG_NAME);
    let info;
    try {
      info = await stat(file);
    } catch (error) {
      if (hasCode(error, "ENOENT", "ENOTDIR")) return null;
      throw error;
    }
    if (!info.isFile()) return null;
    const rotations = await listRotations(file);
    const oldest = rotations[0]?.location ?? file;
    return { id, size: info.size, rotations: rotations.length, updatedAt: info.mtime, firstPrompt: firstPromptIn(await firstLines(oldest, FIRST_PROMPT_SCAN_LINES)) };
  }
}

async function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (info) => info.isFile(),
    () => false,
  );
}

/** How much of a log the first prompt is looked for in. */
const FIRST_PROMPT_SCAN_BYTES = 1024 * 1024;

/** Up to `count` first lines of `file`, within its first MiB (a huge log, or a huge line, is not read whole). */
async function firstLines(file: string, count: number): Promise<string[]> {
  const lines: string[] = [];
  const input = createReadStream(file, { encoding: "utf8", highWaterMark: 64 * 1024, end: FIRST_PROMPT_SCAN_BYTES - 1 });
  const reader = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of reader) {
      lines.push(line);
      if (lines.length >= count) break;
    }
  } catch (error) {
    if (!hasCode(error, "ENOENT")) throw error;
  } finally {
    reader.close();
    input.destroy();
  }
  return lines;
}
