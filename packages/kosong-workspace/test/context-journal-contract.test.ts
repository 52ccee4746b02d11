/** The file journal keeps the contract the soul's Context relies on, on a real workspace folder. */
import { readFile, realpath, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { FileJournal, nodeWorkspaceFiles } from "@kosong/workspace";
import { describeContextJournalContract } from "@kosong/workspace/testing";
import { tempDir } from "@kosong/test-support";

describeContextJournalContract("FileJournal", async () => {
  const root = await realpath(await tempDir());
  const dir = path.join(await tempDir(), "files");
  const opened: FileJournal[] = [];
  const open = () => {
    const journal = new FileJournal({ dir, files: nodeWorkspaceFiles(root) });
    opened.push(journal);
    return journal;
  };
  let journal = open();
  const at = (name: string) => path.join(root, name);
  return {
    get journal() {
      return journal;
    },
    async write(name, content) {
      const declared = await journal.declareWrite([name]);
      try {
        if (content === null) await rm(at(name), { force: true });
        else await writeFile(at(name), content);
      } finally {
        await declared.done();
      }
    },
    read: (name) => readFile(at(name), "utf8").catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? null : Promise.reject(error))),
    writeOutside: (name, content) => writeFile(at(name), content),
    reopen: async () => (journal = open()),
    cleanup: async () => {
      await Promise.all(opened.map((j) => j.close()));
    },
  };
});
