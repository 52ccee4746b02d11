/** `/fork` in the interactive mode (in process) copies a session's children, their conversations in files (see `../e2e/session-children-travel.ts`; export and import: session-children.e2e.test.ts). */
import { describe, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { interactiveSuite } from "./interactive-suite.js";
import { fileChildConversation as conversation, forkCopiesChildren } from "../e2e/session-children-travel.js";

const tempDir = useTempDirs();
const { server, start } = await interactiveSuite({ binary: true });

const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };


describe("a session's children travel with it (files)", { timeout: 120_000 }, () => {
  it("/fork copies them into the new session", async () => {
    await forkCopiesChildren(server, start, await tempDir(), env, conversation);
  });
});
