/** `/agents <id>` on a running child with `--store` (PostgreSQL, the run's test server), in the interactive mode in process (see `../e2e/running-child-transcript.ts`). */
import { describe, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { showRunningChildTranscript } from "../e2e/running-child-transcript.js";
import { useTestStore } from "../e2e/test-store.js";
import { interactiveSuite } from "./interactive-suite.js";

const tempDir = useTempDirs();
const pg = useTestStore();
const { server, start } = await interactiveSuite();

describe("/agents on a running child (--store)", { timeout: 90_000 }, () => {
  it("shows its conversation so far from the store, without its lock, while it runs", async () => {
    await showRunningChildTranscript(server, start, await tempDir(), { KOSONG_STORE_URL: pg.url });
  });
});
