import type { ContextLog, LinearStorage } from "@kosong/context";
import { describeContextLogContract, describeLinearStorageContract } from "@kosong/context/testing";
import { sessionId, testStore } from "./helpers/store.js";

const store = await testStore();

describeContextLogContract("PostgresContextLog", async () => {
  const id = sessionId();
  let latest: ContextLog = await store.openLog(id);
  return {
    log: latest,
    reopen: async () => {
      await latest.close();
      latest = await store.openLog(id);
      return latest;
    },
    cleanup: () => latest.close(),
  };
});

describeLinearStorageContract("PostgresLinearStorage", () => {
  const id = sessionId();
  let latest: LinearStorage = store.linearStorage(id);
  return {
    storage: latest,
    reopen: async () => {
      await latest.close();
      const next = store.linearStorage(id);
      await next.restore();
      latest = next;
      return latest;
    },
    cleanup: () => latest.close(),
  };
});
