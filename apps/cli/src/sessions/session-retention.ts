/**
 * Session retention: which saved sessions `kosong sessions prune` (and the
 * config's `session_retention`, at start-up) removes, and removing them
 * whole: the folder with its rotations, file-journal blobs (`files/`) and
 * subagent contexts (`agents/`), and with a PostgreSQL store the
 * conversation and its rotations in the database, and its child agents'. Nothing in a session's
 * folder is shared with another session, so nothing another session still
 * uses goes with it.
 */
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import { JsonlSessionStore } from "@kosong/context";
import { UsageError } from "../cli-error.js";
import { agentIdPattern } from "../subagents/subagent-store.js";
import { type ListedSession, listSessions } from "./session-store.js";
import { childSessionId } from "./stored-conversation.js";

/** What to keep: sessions last used within `olderThanMs`, and the `keep` most recently used ones (null: no such limit). */
export interface RetentionPolicy {
  olderThanMs: number | null;
  keep: number | null;
}

/** A session a prune removed (or, on a dry run, would remove), or left because it could not. */
export interface PrunedSession {
  session: ListedSession;
  /** Bytes of the session's folder on disk (conversation, rotations, journal, subagents). */
  diskBytes: number;
  /** Null when removed (or removable, on a dry run); else why it was left. */
  skipped: string | null;
}

/** How to reach a PostgreSQL store for sessions whose conversation lives there. */
export interface StoreDeleter {
  /** Deletes the session's conversation and rotations; false when the store has none. Throws when it is in use. */
  deleteSession(id: string): Promise<boolean>;
}

const ageUnits: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** An age such as `30d`, `12h`, `2w`, `90m`, `45s` in ms; a {@link UsageError} naming `from` otherwise. */
export function parseAge(value: string, from: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$/i.exec(value);
  if (!match) throw new UsageError(`${from}: expected an age such as 30d, 12h, 2w (units s, m, h, d, w), got "${value}"`);
  return Number(match[1]) * ageUnits[match[2]!.toLowerCase()]!;
}

/** A count of sessions to keep: a whole number >= 0. */
export function parseKeep(value: string | number, from: string): number {
  const n = Number(value);
  if (String(value).trim() === "" || !Number.isSafeInteger(n) || n < 0) throw new UsageError(`${from}: expected a whole number of sessions (0 or more), got "${value}"`);
  return n;
}

/**
 * The sessions `policy` removes, from `sessions` (most recently used
 * first): beyond the `keep` newest, and last used more than `olderThanMs`
 * before `now`; never those in `spare` (the one being opened).
 */
export function sessionsToPrune(sessions: readonly ListedSession[], policy: RetentionPolicy, now: number, spare: ReadonlySet<string> = new Set()): ListedSession[] {
  if (policy.olderThanMs === null && policy.keep === null) return [];
  const ordered = [...sessions].sort((a, b) => b.lastUsed - a.lastUsed || b.id.localeCompare(a.id));
  return ordered.filter((s, index) => {
    if (spare.has(s.id)) return false;
    if (policy.keep !== null && index < policy.keep) return false;
    return policy.olderThanMs === null || s.lastUsed < now - policy.olderThanMs;
  });
}

/**
 * Removes (or with `dryRun` only lists) the sessions of `home` that `policy`
 * selects. A session whose conversation is in PostgreSQL is deleted there
 * first through `store`; without a store, or while another process holds it,
 * it is left whole and said so.
 */
export async function pruneSessions(home: string, policy: RetentionPolicy, options: { dryRun: boolean; now?: number; spare?: ReadonlySet<string>; store?: StoreDeleter | null }): Promise<PrunedSession[]> {
  const selected = sessionsToPrune(await listSessions(home), policy, options.now ?? Date.now(), options.spare);
  const results: PrunedSession[] = [];
  for (const session of selected) {
    const diskBytes = await folderBytes(session.dir);
    results.push({ session, diskBytes, skipped: await removeOne(session, options) });
  }
  return results;
}

async function removeOne(session: ListedSession, options: { dryRun: boolean; store?: StoreDeleter | null }): Promise<string | null> {
  const inStore = session.storedSize !== null;
  if (inStore && !options.store) return "its conversation is in PostgreSQL: give --store (or KOSONG_STORE_URL)";
  if (options.dryRun) return null;
  try {
    if (inStore) {
      // Its child agents' conversations first (each `<id>/<agent id>` in the store), then its own.
      for (const agentId of await childAgentIds(session.dir)) await options.store!.deleteSession(childSessionId(session.id, agentId));
      await options.store!.deleteSession(session.id);
    }
    // Under the conversation file's lock: a session open in another kosong is refused, not torn.
    await new JsonlSessionStore(path.dirname(session.dir)).deleteSession(path.basename(session.dir));
  } catch (error) {
    return `not removed: ${(error as Error).message}`;
  }
  return null;
}

/** Bytes of the regular files under `dir` (links not followed). */
export async function folderBytes(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  let total = 0;
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await folderBytes(full);
    else if (entry.isFile()) total += await lstat(full).then((s) => s.size, () => 0);
  }
  return total;
}

/** The ids of the child agents recorded in session folder `dir` (`agents/<id>/`). */
async function childAgentIds(dir: string): Promise<string[]> {
  const names = await readdir(path.join(dir, "agents")).catch(() => [] as string[]);
  return names.filter((name) => agentIdPattern.test(name));
}
