/** A session's children travel with it (export, import, /fork) with `--store` (PostgreSQL, the run's test server; see `session-children-travel.ts`). */
import { extractText } from "@kosong/core";
import { describe, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { kosongSuite } from "./kosong-suite.js";
import { type ChildConversation, exportAndImportChildren, forkCopiesChildren } from "./session-children-travel.js";
import { useTestStore } from "./test-store.js";

const tempDir = useTempDirs();
const pg = useTestStore();
const { server, start } = await kosongSuite({ tmux: true });

const env = () => ({ OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, KOSONG_STORE_URL: pg.url });

/** The child's conversation in the store, as session `<session id>/<agent id>`. */
const conversation: ChildConversation = async (_home, sessionId, agentId) => {
  const log = await pg.store.openLog(`${sessionId}/${agentId}`);
  try {
    return (await log.read()).messages.map((m) => `${m.role}: ${extractText(m)}`);
  } finally {
    await log.close();
  }
};

describe("a session's children travel with it (--store)", { timeout: 120_000 }, () => {
  it("kosong export carries them, kosong import puts them into the store, resume continues one", async () => {
    await exportAndImportChildren(server, await tempDir(), env(), conversation);
  });

  it("/fork copies them in the store", async () => {
    await forkCopiesChildren(server, start, await tempDir(), env(), conversation);
  });
});
