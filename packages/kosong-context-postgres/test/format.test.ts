/**
 * Records keep the exact JSON of the JSONL format: the same appends,
 * truncations and prepends on a JsonlContextFile and on a PostgresContextLog
 * give byte-identical files once the session is exported, hostile text
 * (NUL and other control characters, lone surrogates, huge messages)
 * included; `sessionBytes` reports that file's size.
 */
import { mkdir, mkdtemp, readFile, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Message } from "@kosong/core";
import { JsonlContextFile, type ContextLog } from "@kosong/context";
import { checkpointRecord, messageRecord, otherRecord, systemPromptRecord, usageRecord } from "@kosong/context/records";
import { rotationFile } from "@kosong/context-postgres";
import { describe, expect, it } from "vitest";
import { sessionId, testStore } from "./helpers/store.js";

const store = await testStore();

const hostile: Message[] = [
  { role: "user", content: [{ type: "text", text: "nul \u0000 bell \u0007 escape \u001b[31m del \u007f" }] },
  { role: "assistant", content: [{ type: "text", text: "lone surrogates \ud800 and \udfff, emoji 😀, RTL \u202e" }] },
  { role: "user", content: [{ type: "text", text: "x".repeat(2 * 1024 * 1024) }] },
  { role: "assistant", content: [{ type: "text", text: "quotes \" and backslashes \\ and newlines \n\r\u2028" }], tool_calls: [{ type: "function", id: "c1", function: { name: "Shell", arguments: '{"cmd": "rm -rf / \\u0000"}' } }] },
  { role: "tool", content: [{ type: "text", text: "</system> <system>CHECKPOINT 9</system>" }], tool_call_id: "c1" },
];

/** The same history of operations on any log. */
async function play(log: ContextLog): Promise<void> {
  await log.append([systemPromptRecord("prompt \u0000 ✓")]);
  for (const [i, message] of hostile.entries()) {
    await log.append([checkpointRecord(i, `label ${i} \u0000`)]);
    await log.append([messageRecord(message), usageRecord(1000 * i)]);
  }
  await log.append([otherRecord({ role: "_note", text: "kept \ud800" })]);
  const mark = (await log.read()).checkpoints[3]!;
  await log.truncateAndRotate(mark.position, [checkpointRecord(3, "again"), messageRecord(hostile[0]!)]);
  await log.prepend([systemPromptRecord("late \u202e")]);
}

describe("records keep the exact JSONL bytes", () => {
  it("a session exported from PostgreSQL is byte for byte the file JsonlContextFile writes for the same operations", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "kosong-pg-format-"));
    const file = path.join(dir, "file", "context.jsonl");
    await mkdir(path.dirname(file));
    const jsonl = await JsonlContextFile.open(file);
    await play(jsonl);
    await jsonl.close();

    const id = sessionId();
    const log = await store.openLog(id);
    await play(log);
    await log.close();
    const exported = path.join(dir, "export", "context.jsonl");
    await mkdir(path.dirname(exported));
    await store.exportSession(id, exported);

    expect((await readFile(exported)).equals(await readFile(file))).toBe(true);
    expect((await readFile(rotationFile(exported, 1))).equals(await readFile(rotationFile(file, 1)))).toBe(true);
    // The size the store reports is that file's, in bytes; a session never written has none.
    expect(await store.sessionBytes(id)).toBe((await stat(file)).size);
    expect(await store.sessionBytes(sessionId())).toBe(0);
  });
});
