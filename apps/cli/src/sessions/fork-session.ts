/**
 * `/fork`: a new saved session holding a copy of the current branch (the
 * conversation as it is, byte for byte on files; not its other branches,
 * nor the file journal, so a revert there restores no file from before the
 * fork). The session it was forked from goes on unchanged.
 */
import { copyFile } from "node:fs/promises";
import { createSession, recordFirstPrompt, secureSessionFiles, type SessionInfo } from "./session-store.js";
import { copyStoredConversation } from "./stored-conversation.js";

/** Where the conversation to fork is: a file, or a session in the PostgreSQL store at `url`. */
export type ForkSource = { contextFile: string } | { store: string; sessionId: string };

/** Creates a session of `cwd` under `home` whose conversation is a copy of the current branch of `source`. */
export async function forkSession(home: string, cwd: string, source: ForkSource, firstPrompt: string | null): Promise<SessionInfo> {
  const info = await createSession(home, cwd);
  if ("contextFile" in source) await copyFile(source.contextFile, info.contextFile);
  else await copyStoredConversation(source.store, source.sessionId, info.id);
  if (firstPrompt !== null) await recordFirstPrompt(info, firstPrompt);
  await secureSessionFiles(info);
  return info;
}
