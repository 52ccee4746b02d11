/** A real workspace folder with a journaled Context, and a snapshot of its files for comparisons. */
import { createHash } from "node:crypto";
import { lstat, readdir, readFile, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { writeFile } from "node:fs/promises";
import { defineTool } from "@kosong/core";
import { Context } from "@kosong/soul";
import { declareWrite } from "@kosong/soul/internal";
import { z } from "zod";
import { FileJournal, nodeWorkspaceFiles, type FileJournalOptions } from "@kosong/workspace";
import { tempDir } from "@kosong/test-support";

/** A workspace, a session folder, and a Context on a JSONL file with a file journal. */
export async function journaledSession(options: Pick<FileJournalOptions, "maxFileBytes" | "commandScan"> = {}) {
  const root = await realpath(await tempDir());
  const session = await tempDir();
  const open = async () => {
    const journal = new FileJournal({ dir: path.join(session, "files"), files: nodeWorkspaceFiles(root), ...options });
    const context = new Context(path.join(session, "context.jsonl"), { fileJournal: journal });
    const report = await context.restore();
    return { journal, context, report };
  };
  return { root, session, open, ...(await open()) };
}

/** Every entry under `root` (folders walked, links not followed): path -> "file:<mode>:<sha256>" or "link:<target>". */
export async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const name of (await readdir(dir)).sort()) {
      const full = path.join(dir, name);
      const key = path.relative(root, full);
      const info = await lstat(full);
      if (info.isSymbolicLink()) out[key] = `link:${await readlink(full)}`;
      else if (info.isDirectory()) await walk(full);
      else out[key] = `file:${(info.mode & 0o7777).toString(8)}:${createHash("sha256").update(await readFile(full)).digest("hex")}`;
    }
  };
  await walk(root);
  return out;
}

/** A `Write` tool that writes `file` ({text}), declaring the write to the session's file journal first. */
export function journaledWriteTool(file: string) {
  return defineTool({
    name: "Write",
    description: `Writes ${path.basename(file)}.`,
    parameters: z.object({ text: z.string() }),
    async execute({ text }, context) {
      const declared = await declareWrite(context, [file]);
      try {
        await writeFile(file, text);
      } finally {
        await declared.done();
      }
      return "written";
    },
  });
}
