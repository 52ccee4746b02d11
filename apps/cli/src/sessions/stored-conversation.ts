/**
 * A saved session's conversation in PostgreSQL (`--store` /
 * `KOSONG_STORE_URL`) instead of its `context.jsonl`: the session's folder
 * and metadata stay on disk, the conversation lives in the database under
 * the session's id (its child agents' under `<session id>/<agent id>`), so
 * the same agent runs on files or on PostgreSQL unchanged. @kosong/context-postgres (and its database client) is loaded
 * only here, so runs on files never load it.
 */
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ContextLog } from "@kosong/context";
import { type ContextRecord, encodeRecord, scanContextFile } from "@kosong/context/records";
import type { PostgresContextStore } from "@kosong/context-postgres";
import { UsageError } from "../cli-error.js";
import type { ChildLogs } from "../subagents/subagent-store.js";
import type { SessionInfo } from "./session-store.js";

/** An open conversation in the store, and how to let go of the store. */
export interface StoredConversation {
  log: ContextLog;
  /** The session's child agents' conversations in the same store, each opened (and locked) as session `<session id>/<agent id>` ({@link storedChildLogs}). */
  children: ChildLogs;
  /** The conversation's size in bytes, as a `context.jsonl` would hold it (for `kosong sessions` and the picker). */
  bytes(): Promise<number>;
  /** Ends the store's connections (after the context, which closes the log, is closed). */
  close(): Promise<void>;
}

/** Connects to `url` and opens (and locks) the conversation of `session`. */
export async function openStoredConversation(url: string, session: SessionInfo | null): Promise<StoredConversation> {
  if (session === null) throw new UsageError("--store keeps saved sessions in PostgreSQL; --resume-file resumes a file: use one of them.");
  const { PostgresContextStore } = await import("@kosong/context-postgres");
  // A lost connection is retried for 10 s (then the write fails and the turn reports it), not the library's 30 s.
  const store = await PostgresContextStore.connect(url, { reconnectTimeoutMs: 10_000 });
  try {
    return {
      log: await store.openLog(session.id),
      children: storedChildLogs(store, session.id),
      bytes: () => store.sessionBytes(session.id),
      close: () => store.close(),
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** The store's session id of child agent `agentId` of session `sessionId`: the parent's id, a slash, the agent's (its link to the parent). */
export function childSessionId(sessionId: string, agentId: string): string {
  return `${sessionId}/${agentId}`;
}

/** The conversations of session `sessionId`'s child agents in `store`, each the store's session `<session id>/<agent id>`. */
export function storedChildLogs(store: PostgresContextStore, sessionId: string): ChildLogs {
  return {
    open: (agentId) => store.openLog(childSessionId(sessionId, agentId)),
    read: (agentId) => readStoredRecords(store, childSessionId(sessionId, agentId)),
    write: (agentId, records) => writeStoredRecords(store, childSessionId(sessionId, agentId), records),
  };
}

/** Creates session `sessionId` in `store` holding `records` (one transaction, under its lock; it must not exist yet). */
export async function writeStoredRecords(store: PostgresContextStore, sessionId: string, records: readonly ContextRecord[]): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "kosong-write-"));
  try {
    const file = path.join(dir, "context.jsonl");
    await writeFile(file, records.map((r) => `${encodeRecord(r)}\n`).join(""), { mode: 0o600 });
    await store.importSession(sessionId, file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The current conversation of session `sessionId` in `store` (not its
 * rotations), from one snapshot and without its lock: exported into a
 * private temp folder and read back (damaged lines skipped), the folder
 * removed.
 */
export async function readStoredRecords(store: PostgresContextStore, sessionId: string): Promise<ContextRecord[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "kosong-read-"));
  try {
    const exported = await store.exportSession(sessionId, path.join(dir, "context.jsonl"));
    const records: ContextRecord[] = [];
    await scanContextFile(exported.file, ({ record }) => records.push(record));
    return records;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Copies the current conversation of session `fromId` (not its rotations)
 * into the new session `toId` of the store at `url`: exported from one
 * snapshot into a private temp folder, imported in one transaction, the
 * temp files removed; `then` runs on the same connection after (the
 * children's copies).
 */
export async function copyStoredConversation(url: string, fromId: string, toId: string, then?: (store: PostgresContextStore) => Promise<void>): Promise<void> {
  const { PostgresContextStore } = await import("@kosong/context-postgres");
  const store = await PostgresContextStore.connect(url, { reconnectTimeoutMs: 10_000 });
  const dir = await mkdtemp(path.join(os.tmpdir(), "kosong-fork-"));
  try {
    const exported = await store.exportSession(fromId, path.join(dir, "context.jsonl"));
    // Only the current branch: its file alone in a folder, so the import finds no rotation beside it.
    const current = path.join(dir, "current", "context.jsonl");
    await mkdir(path.dirname(current));
    await rename(exported.file, current);
    await store.importSession(toId, current);
    await then?.(store);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await store.close();
  }
}
