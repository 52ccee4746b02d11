/** A session's children travel with it (export, import), with their conversations in files (see `session-children-travel.ts`; `/fork`: test/interactive/session-children.test.ts). */
import { describe, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { kosongSuite } from "./kosong-suite.js";
import { exportAndImportChildren, fileChildConversation as conversation } from "./session-children-travel.js";

const tempDir = useTempDirs();
const { server } = await kosongSuite();

const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };


describe("a session's children travel with it (files)", { timeout: 120_000 }, () => {
  it("kosong export carries them (md/html under the Agent call, jsonl beside the file), kosong import restores them and resume continues one", async () => {
    await exportAndImportChildren(server, await tempDir(), env, conversation);
  });

});
