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
import { JsonlSessionStore, type SessionSummary } from "@kosong/context";
import { UsageError } from "../cli-error.js";
import { agentIdPattern } from "../subagents/subagent-store.js";
import { type ListedSession, listSessions, removeAbandonedSessions } from "./session-store.js";
import { deleteWithChildren, type SessionStoreClient, storeOnlySessions } from "./store-sessions.js";
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

/** The sessions of `home` and, with `store`, those only the store holds, most recently used first. */
export async function listAllSessions(home: string, store: SessionStoreClient | null): Promise<{ sessions: ListedSession[]; stored: SessionSummary[] }> {
  const local = await listSessions(home);
  if (store === null) return { sessions: local, stored: [] };
  const stored = await store.listSessions();
  const sessions = [...local, ...storeOnlySessions(local, stored)].sort((a, b) => b.lastUsed - a.lastUsed || b.id.localeCompare(a.id));
  return { sessions, stored };
}

/** Bytes a session takes on disk: its folder (0 for a session only in the store). */
export function diskBytesOf(session: ListedSession): Promise<number> {
  return session.onlyInStore ? Promise.resolve(0) : folderBytes(session.dir);
}

/**
 * Removes (or with `dryRun` only lists) the sessions of `home`, and with
 * `store` those only the store holds, that `policy` selects. A session whose
 * conversation is in PostgreSQL is deleted there first through `store` (its
 * rotations and subagent contexts with it); without a store, or while
 * another process holds it, it is left whole and said so. `storeOnly:
 * false` leaves the sessions without a folder here alone (start-up
 * retention: the database may be shared with other programs). Unless
 * `dryRun`, the folders of sessions killed before their first prompt go
 * too (`removeAbandonedSessions`, `spare` spared; not counted: they were
 * never listed).
 */
export async function pruneSessions(
  home: string,
  policy: RetentionPolicy,
  options: { dryRun: boolean; now?: number; spare?: ReadonlySet<string>; store?: SessionStoreClient | null; storeOnly?: boolean },
): Promise<PrunedSession[]> {
  if (!options.dryRun) await removeAbandonedSessions(home, options.spare);
  const listed = await listAllSessions(home, options.store ?? null);
  const sessions = options.storeOnly === false ? listed.sessions.filter((s) => !s.onlyInStore) : listed.sessions;
  const stored = listed.stored;
  const selected = sessionsToPrune(sessions, policy, options.now ?? Date.now(), options.spare);
  const results: PrunedSession[] = [];
  for (const session of selected) {
    const diskBytes = await diskBytesOf(session);
    results.push({ session, diskBytes, skipped: await removeOne(session, stored, options) });
  }
  return results;
}

async function removeOne(session: ListedSession, stored: readonly SessionSummary[], options: { dryRun: boolean; store?: SessionStoreClient | null }): Promise<string | null> {
  const inStore = session.storedSize !== null;
  if (inStore && !options.store) return "its conversation is in PostgreSQL: give --store (or KOSONG_STORE_URL)";
  if (options.dryRun) return null;
  try {
    if (inStore) {
      // Its child agents' conversations (each `<id>/<agent id>` in the store: those it lists and those the folder records), then its own.
      const recorded = session.onlyInStore ? [] : (await childAgentIds(session.dir)).map((agentId) => childSessionId(session.id, agentId));
      await deleteWithChildren(options.store!, session.id, stored, recorded);
    }
    // Under the conversation file's lock: a session open in another kosong is refused, not torn.
    if (!session.onlyInStore) await new JsonlSessionStore(path.dirname(session.dir)).deleteSession(path.basename(session.dir));
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
