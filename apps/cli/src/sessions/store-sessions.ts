/**
 * Sessions a PostgreSQL store holds that have no folder here (written by a
 * service on the packages, another machine, or a folder removed by hand):
 * `kosong sessions` lists them and `kosong sessions prune` removes them,
 * given `--store`. A store session named `<id>/<child>` is a subagent
 * context of session `<id>` (the CLI keeps its children so, see
 * `childSessionId`): it is counted in and removed with it, listed on its
 * own only when that session is gone. Also how the session commands reach
 * the store (`--store`, else `KOSONG_STORE_URL`).
 */
import type { SessionSummary } from "@kosong/context";
import type { PostgresContextStore } from "@kosong/context-postgres";
import type { ListedSession } from "./session-store.js";

/** What the CLI needs of a PostgreSQL store to list and remove its sessions. */
export interface SessionStoreClient {
  /** Every session of the store, with its size, last write and first prompt. */
  listSessions(): Promise<SessionSummary[]>;
  /** Deletes the session's conversation and rotations; false when the store has none. Throws when it is in use. */
  deleteSession(id: string): Promise<boolean>;
}

/** What the directory column shows for a session that lives only in the store. */
export const STORE_ONLY_DIRECTORY = "(only in PostgreSQL)";

/** The parent session of store session `id` (`<id>/<child>`), or null when it is no child. */
function parentOf(id: string): string | null {
  const slash = id.indexOf("/");
  return slash > 0 ? id.slice(0, slash) : null;
}

/**
 * The sessions of `stored` without a folder among `local`, as listed
 * sessions (their children folded in; a child whose parent is gone from
 * both is listed on its own, so that it can be pruned).
 */
export function storeOnlySessions(local: readonly ListedSession[], stored: readonly SessionSummary[]): ListedSession[] {
  const known = new Set(local.map((s) => s.id));
  const inStore = new Set(stored.map((s) => s.id));
  const listedAlone = (id: string): boolean => {
    const parent = parentOf(id);
    return parent === null || (!known.has(parent) && !inStore.has(parent));
  };
  const own = stored.filter((s) => listedAlone(s.id) && !known.has(s.id));
  return own.map((s) => {
    const children = stored.filter((c) => parentOf(c.id) === s.id);
    const lastUsed = Math.max(s.updatedAt.getTime(), ...children.map((c) => c.updatedAt.getTime()));
    const size = s.size + children.reduce((sum, c) => sum + c.size, 0);
    return { id: s.id, dir: "", contextFile: "", cwd: STORE_ONLY_DIRECTORY, firstPrompt: s.firstPrompt, createdAt: s.updatedAt.toISOString(), compaction: null, storedSize: size, size, lastUsed, onlyInStore: true };
  });
}

/** Deletes the subagent contexts of store session `id` (`<id>/...` among `stored`, and `recorded`), then the session. */
export async function deleteWithChildren(store: SessionStoreClient, id: string, stored: readonly SessionSummary[], recorded: readonly string[] = []): Promise<void> {
  const children = new Set([...stored.map((s) => s.id).filter((child) => parentOf(child) === id), ...recorded]);
  for (const child of children) await store.deleteSession(child);
  await store.deleteSession(id);
}

/** The store's URL: `--store`, else `KOSONG_STORE_URL`, else none. */
export function storeUrl(option: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  return option ?? (env.KOSONG_STORE_URL || undefined);
}

/** Runs `work` on a connection to the store at `url` (closed after), a lost connection retried for `reconnectTimeoutMs` (default 10 s). */
export async function withConnectedStore<T>(url: string, work: (store: PostgresContextStore) => Promise<T>, reconnectTimeoutMs = 10_000): Promise<T> {
  const { PostgresContextStore } = await import("@kosong/context-postgres");
  const connected = await PostgresContextStore.connect(url, { reconnectTimeoutMs });
  try {
    return await work(connected);
  } finally {
    await connected.close();
  }
}

/** Runs `use` with a store connected to `url` (none without a url), closing it after; `reconnectTimeoutMs` as {@link withConnectedStore}'s. */
export function withStore<T>(url: string | undefined, use: (store: SessionStoreClient | null) => Promise<T>, reconnectTimeoutMs?: number): Promise<T> {
  return url === undefined ? use(null) : withConnectedStore(url, use, reconnectTimeoutMs);
}
