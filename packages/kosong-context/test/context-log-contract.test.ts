import path from "node:path";
import { JsonlContextFile, MemoryContextLog, type ContextLog, type Durability } from "@kosong/context";
import { describeContextLogContract } from "@kosong/context/testing";
import { tempDir } from "@kosong/test-support";

describeContextLogContract("MemoryContextLog", () => ({ log: new MemoryContextLog("test-session") }));

for (const durability of ["batch", "always", "none"] satisfies Durability[]) {
  describeContextLogContract(`JsonlContextFile (durability ${durability})`, async () => {
    const file = path.join(await tempDir(), "context.jsonl");
    let latest: ContextLog = await JsonlContextFile.open(file, { durability });
    return {
      log: latest,
      reopen: async () => {
        await latest.close();
        latest = await JsonlContextFile.open(file, { durability });
        return latest;
      },
      cleanup: () => latest.close(),
    };
  });
}
