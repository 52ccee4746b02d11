/** `/agents <id>` on a running child, with the children's conversations in files (see `running-child-transcript.ts`). */
import { describe, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { kosongSuite } from "./kosong-suite.js";
import { showRunningChildTranscript } from "./running-child-transcript.js";

const tempDir = useTempDirs();
const { server, terminals } = await kosongSuite({ tmux: true });

describe("/agents on a running child (files)", { timeout: 90_000 }, () => {
  it("shows its conversation so far, read-only, while it runs; the whole of it once it finished", async () => {
    await showRunningChildTranscript(server, terminals, await tempDir());
  });
});
