/** A session's children travel with it (export, import) with `--store` (PostgreSQL, the run's test server; see `session-children-travel.ts`; /fork: ../interactive/session-children-postgres.test.ts). */
import { describe, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { kosongSuite } from "./kosong-suite.js";
import { exportAndImportChildren, storeChildConversation } from "./session-children-travel.js";
import { useTestStore } from "./test-store.js";

const tempDir = useTempDirs();
const pg = useTestStore();
const { server } = await kosongSuite();

const env = () => ({ OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, KOSONG_STORE_URL: pg.url });

describe("a session's children travel with it (--store)", { timeout: 120_000 }, () => {
  it("kosong export carries them, kosong import puts them into the store, resume continues one", async () => {
    await exportAndImportChildren(server, await tempDir(), env(), storeChildConversation(pg.store));
  });
});
