/**
 * A saved session's conversation as records (messages, checkpoints, usage,
 * system prompt), read from its `context.jsonl` or, with a store, from
 * PostgreSQL; and a new session made from records (`kosong import`).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { extractText } from "@kosong/core";
import { type ContextRecord, encodeRecord, scanContextFile } from "@kosong/context/records";
import { readStoredRecords } from "../sessions/stored-conversation.js";
import { createSession, recordFirstPrompt, recordStoredSize, secureSessionFiles, type SessionInfo } from "../sessions/session-store.js";

/** The current conversation of `session` (not its rotations); `store`: the PostgreSQL URL when its conversation is there. */
export async function readConversation(session: SessionInfo, store: string | null): Promise<ContextRecord[]> {
  if (session.storedSize === null) return scanRecords(session.contextFile);
  if (store === null) throw new Error(`the conversation of session ${session.id} is in PostgreSQL: give --store (or KOSONG_STORE_URL)`);
  const { PostgresContextStore } = await import("@kosong/context-postgres");
  const connected = await PostgresContextStore.connect(store, { reconnectTimeoutMs: 10_000 });
  try {
    return await readStoredRecords(connected, session.id);
  } finally {
    await connected.close();
  }
}

/** The records of a context file, damaged lines skipped; their count with them. */
export async function scanRecords(file: string): Promise<ContextRecord[]> {
  const records: ContextRecord[] = [];
  await scanContextFile(file, ({ record }) => records.push(record));
  return records;
}

/** `records` as a context file's text (kimi-cli's format). */
export function recordsToJsonl(records: readonly ContextRecord[]): string {
  return records.map((r) => `${encodeRecord(r)}\n`).join("");
}

/** A new session of `cwd` under `home` holding `records` (with `store`, in PostgreSQL). */
export async function createSessionFrom(home: string, cwd: string, records: readonly ContextRecord[], store: string | null): Promise<SessionInfo> {
  const info = await createSession(home, cwd);
  const text = recordsToJsonl(records);
  if (store === null) await writeFile(info.contextFile, text, { mode: 0o600 });
  else {
    const { PostgresContextStore } = await import("@kosong/context-postgres");
    const connected = await PostgresContextStore.connect(store, { reconnectTimeoutMs: 10_000 });
    const dir = await mkdtemp(path.join(os.tmpdir(), "kosong-import-"));
    try {
      const file = path.join(dir, "context.jsonl");
      await writeFile(file, text, { mode: 0o600 });
      await connected.importSession(info.id, file);
      await recordStoredSize(info, await connected.sessionBytes(info.id));
    } finally {
      await rm(dir, { recursive: true, force: true });
      await connected.close();
    }
  }
  const first = records.find((r) => r.kind === "message" && r.message.role === "user" && !/^<system>CHECKPOINT \d+<\/system>$/.test(extractText(r.message).trim()));
  if (first?.kind === "message") await recordFirstPrompt(info, extractText(first.message, "\n"));
  await secureSessionFiles(info);
  return info;
}
