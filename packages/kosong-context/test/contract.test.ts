import path from "node:path";
import { JsonlLinearStorage, MemoryLinearStorage, type Durability, type LinearStorage } from "@kosong/context";
import { describeLinearStorageContract } from "@kosong/context/testing";
import { tempDir } from "@kosong/test-support";

describeLinearStorageContract("MemoryLinearStorage", () => {
  let latest: LinearStorage = new MemoryLinearStorage();
  return {
    storage: latest,
    reopen: async () => {
      latest = new MemoryLinearStorage({ messages: latest.messages, tokenCount: latest.tokenCount });
      return latest;
    },
  };
});

for (const durability of ["batch", "always", "none"] satisfies Durability[]) {
  describeLinearStorageContract(`JsonlLinearStorage (durability ${durability})`, async () => {
    const file = path.join(await tempDir(), "context.jsonl");
    let latest = new JsonlLinearStorage(file, { durability });
    return {
      storage: latest,
      reopen: async () => {
        await latest.close();
        latest = new JsonlLinearStorage(file, { durability });
        await latest.restore();
        return latest;
      },
      cleanup: () => latest.close(),
    };
  });
}
