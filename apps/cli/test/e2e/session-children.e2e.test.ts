/** A session's children travel with it (export, import), with their conversations in files (see `session-children-travel.ts`; `/fork`: test/interactive/session-children.test.ts). */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { extractText } from "@kosong/core";
import { decodeRecordLine } from "@kosong/context/records";
import { describe, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { kosongSuite } from "./kosong-suite.js";
import { type ChildConversation, exportAndImportChildren } from "./session-children-travel.js";

const tempDir = useTempDirs();
const { server } = await kosongSuite();

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
  it("kosong export carries them (md/html under the Agent call, jsonl beside the file), kosong import restores them and resume continues one", async () => {
    await exportAndImportChildren(server, await tempDir(), env, conversation);
  });

});
