/** `/fork` in the interactive mode (in process) copies a session's children, their conversations in files (see `../e2e/session-children-travel.ts`; export and import: session-children.e2e.test.ts). */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { extractText } from "@kosong/core";
import { decodeRecordLine } from "@kosong/context/records";
import { describe, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { interactiveSuite } from "./interactive-suite.js";
import { type ChildConversation, forkCopiesChildren } from "../e2e/session-children-travel.js";

const tempDir = useTempDirs();
const { server, start } = await interactiveSuite({ binary: true });

const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };

/** The child's `context.jsonl` in its folder. */
const conversation: ChildConversation = async (home, sessionId, agentId) => {
  const text = await readFile(path.join(home, ".kosong", "sessions", sessionId, "agents", agentId, "context.jsonl"), "utf8");
  return text.split("\n").flatMap((line) => {
    const decoded = line.trim() ? decodeRecordLine(line) : null;
    return decoded?.ok && decoded.record.kind === "message" ? [`${decoded.record.message.role}: ${extractText(decoded.record.message)}`] : [];
  });
};

describe("a session's children travel with it (files)", { timeout: 120_000 }, () => {
  it("/fork copies them into the new session", async () => {
    await forkCopiesChildren(server, start, await tempDir(), env, conversation);
  });
});
