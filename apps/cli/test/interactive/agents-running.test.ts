/** `/agents <id>` on a running child in the interactive mode (in process), with the children's conversations in files (see `../e2e/running-child-transcript.ts`). */
import { describe, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { showRunningChildTranscript } from "../e2e/running-child-transcript.js";
import { interactiveSuite } from "./interactive-suite.js";

const tempDir = useTempDirs();
const { server, start } = await interactiveSuite();

describe("/agents on a running child (files)", { timeout: 90_000 }, () => {
  it("shows its conversation so far, read-only, while it runs; the whole of it once it finished", async () => {
    await showRunningChildTranscript(server, start, await tempDir());
  });
});
