/**
 * `/fork`: a new saved session holding a copy of the current branch (the
 * conversation as it is, byte for byte on files; not its other branches,
 * nor the file journal, so a revert there restores no file from before the
 * fork), and a copy of its children (subagents: each one's record and
 * current conversation, read without its lock; one still running is
 * "interrupted" in the copy). The session it was forked from goes on
 * unchanged.
 */
import { copyFile } from "node:fs/promises";
import path from "node:path";
import { readChildren, writeChildren } from "../subagents/session-children.js";
import { SubagentStore } from "../subagents/subagent-store.js";
import { createSession, recordFirstPrompt, secureSessionFiles, type SessionInfo } from "./session-store.js";
import { copyStoredConversation, storedChildLogs } from "./stored-conversation.js";

/** Where the conversation to fork is: a file, or a session in the PostgreSQL store at `url`. */
export type ForkSource = { contextFile: string } | { store: string; sessionId: string };

/**
 * Creates a session of `cwd` under `home` whose conversation is a copy of
 * the current branch of `source`, with the children whose records are in
 * folder `agentsDir` (their conversations beside them, or in the store).
 */
export async function forkSession(home: string, cwd: string, source: ForkSource, agentsDir: string, firstPrompt: string | null): Promise<SessionInfo> {
  const info = await createSession(home, cwd);
  const target = path.join(info.dir, "agents");
  if ("contextFile" in source) {
    await copyFile(source.contextFile, info.contextFile);
    await writeChildren(new SubagentStore(target), info.id, await readChildren(new SubagentStore(agentsDir)));
  } else {
    await copyStoredConversation(source.store, source.sessionId, info.id, async (store) => {
      await writeChildren(new SubagentStore(target, storedChildLogs(store, info.id)), info.id, await readChildren(new SubagentStore(agentsDir, storedChildLogs(store, source.sessionId))));
    });
  }
  if (firstPrompt !== null) await recordFirstPrompt(info, firstPrompt);
  await secureSessionFiles(info);
  return info;
}
