/**
 * `/fork`: a new saved session holding a copy of the current branch (the
 * conversation file as it is, byte for byte; not its other branches, nor
 * the file journal, so a revert there restores no file from before the
 * fork). The session it was forked from goes on unchanged.
 */
import { copyFile } from "node:fs/promises";
import { createSession, recordFirstPrompt, secureSessionFiles, type SessionInfo } from "./session-store.js";

/** Creates a session of `cwd` under `home` whose conversation is a copy of `contextFile`. */
export async function forkSession(home: string, cwd: string, contextFile: string, firstPrompt: string | null): Promise<SessionInfo> {
  const info = await createSession(home, cwd);
  await copyFile(contextFile, info.contextFile);
  if (firstPrompt !== null) await recordFirstPrompt(info, firstPrompt);
  await secureSessionFiles(info);
  return info;
}
