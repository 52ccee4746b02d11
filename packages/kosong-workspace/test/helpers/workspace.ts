/** A real workspace folder with a file journal on it (no conversation: the soul's tests pair it with a Context). */
import { realpath } from "node:fs/promises";
import path from "node:path";
import { FileJournal, nodeWorkspaceFiles, type FileJournalOptions } from "@kosong/workspace";
import { tempDir } from "@kosong/test-support";

/** A workspace (`root`, real path), a session folder, and a file journal over them. */
export async function journaledSession(options: Pick<FileJournalOptions, "maxFileBytes" | "commandScan"> = {}) {
  const root = await realpath(await tempDir());
  const session = await tempDir();
  const journal = new FileJournal({ dir: path.join(session, "files"), files: nodeWorkspaceFiles(root), ...options });
  return { root, session, journal };
}
