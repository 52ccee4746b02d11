/** `/fork` in the interactive mode (in process) copies a session's children, their conversations in PostgreSQL (`--store`, the run's test server; see `../e2e/session-children-travel.ts`; export and import: session-children-postgres.e2e.test.ts). */
import { describe, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { forkCopiesChildren, storeChildConversation } from "../e2e/session-children-travel.js";
import { useTestStore } from "../e2e/test-store.js";
import { interactiveSuite } from "./interactive-suite.js";

const tempDir = useTempDirs();
const pg = useTestStore();
const { server, start } = await interactiveSuite({ binary: true });

describe("a session's children travel with it (--store)", { timeout: 120_000 }, () => {
  it("/fork copies them in the store", async () => {
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, KOSONG_STORE_URL: pg.url };
    await forkCopiesChildren(server, start, await tempDir(), env, storeChildConversation(pg.store));
  });
});
