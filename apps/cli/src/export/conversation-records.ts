/**
 * A saved session's conversation as records (messages, checkpoints, usage,
 * system prompt), with its children's (see `session-children.ts`), read
 * from its `context.jsonl` and agent folders or, with a store, from
 * PostgreSQL; and a new session made from them (`kosong import`).
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { extractText } from "@kosong/core";
import { checkpointMarkerId, type ContextRecord, scanContextFile } from "@kosong/context/records";
import { withConnectedStore as withStore } from "../sessions/store-sessions.js";
import { readStoredRecords, storedChildLogs, writeStoredRecords } from "../sessions/stored-conversation.js";
import { createSession, recordFirstPrompt, recordStoredSize, secureSessionFiles, type SessionInfo } from "../sessions/session-store.js";
import { type CarriedChild, encodeRecords, readChildren, writeChildren } from "../subagents/session-children.js";
import { SubagentStore } from "../subagents/subagent-store.js";

/** A session's conversation and its children's. */
export interface SessionContent {
  records: ContextRecord[];
  children: CarriedChild[];
}

/** The current conversation of `session` (not its rotations) and its children's; `store`: the PostgreSQL URL when its conversation is there. */
export async function readConversation(session: SessionInfo, store: string | null): Promise<SessionContent> {
  if (session.storedSize === null) return { records: await scanRecords(session.contextFile), children: await readChildren(new SubagentStore(agentsFolder(session))) };
  if (store === null) throw new Error(`the conversation of session ${session.id} is in PostgreSQL: give --store (or KOSONG_STORE_URL)`);
  return withStore(store, async (connected) => ({
    records: await readStoredRecords(connected, session.id),
    children: await readChildren(new SubagentStore(agentsFolder(session), storedChildLogs(connected, session.id))),
  }));
}

/** The folder of a saved session's children. */
export function agentsFolder(session: Pick<SessionInfo, "dir">): string {
  return path.join(session.dir, "agents");
}

/** The records of a context file, damaged lines skipped; their count with them. */
export async function scanRecords(file: string): Promise<ContextRecord[]> {
  const records: ContextRecord[] = [];
  await scanContextFile(file, ({ record }) => records.push(record));
  return records;
}

/** A new session of `cwd` under `home` holding `content` (with `store`, in PostgreSQL). */
export async function createSessionFrom(home: string, cwd: string, content: SessionContent, store: string | null): Promise<SessionInfo> {
  const { records, children } = content;
  const info = await createSession(home, cwd);
  if (store === null) {
    await writeFile(info.contextFile, encodeRecords(records), { mode: 0o600 });
    await writeChildren(new SubagentStore(agentsFolder(info)), info.id, children);
  } else {
    await withStore(store, async (connected) => {
      await writeStoredRecords(connected, info.id, records);
      await writeChildren(new SubagentStore(agentsFolder(info), storedChildLogs(connected, info.id)), info.id, children);
      await recordStoredSize(info, await connected.sessionBytes(info.id));
    });
  }
  const first = records.find((r) => r.kind === "message" && r.message.role === "user" && checkpointMarkerId(extractText(r.message).trim()) === null);
  if (first?.kind === "message") await recordFirstPrompt(info, extractText(first.message, "\n"));
  await secureSessionFiles(info);
  return info;
}

