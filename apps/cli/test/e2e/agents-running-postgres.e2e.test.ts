/** `/agents <id>` on a running child with `--store` (PostgreSQL, the run's test server; see `running-child-transcript.ts`). */
import { describe, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { kosongSuite } from "./kosong-suite.js";
import { showRunningChildTranscript } from "./running-child-transcript.js";
import { useTestStore } from "./test-store.js";

const tempDir = useTempDirs();
const pg = useTestStore();
const { server, start } = await kosongSuite({ tmux: true });

describe("/agents on a running child (--store)", { timeout: 90_000 }, () => {
  it("shows its conversation so far from the store, without its lock, while it runs", async () => {
    await showRunningChildTranscript(server, start, await tempDir(), { KOSONG_STORE_URL: pg.url });
  });
});
