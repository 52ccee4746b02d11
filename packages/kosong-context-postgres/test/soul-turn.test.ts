/**
 * The soul on PostgreSQL: a full turn with a tool, a D-Mail and a
 * compaction runs on a PostgresContextLog exactly as on a file; the
 * session, exported, restores through the JSONL reader to the same state,
 * and imported again restores to the same state too.
 */
import { copyFile, mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { defineTool, serializeMessage, SimpleToolset, type Message } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import type { ContextLogState } from "@kosong/context";
import { readContextFile } from "@kosong/context/records";
import { rotationFile } from "@kosong/context-postgres";
import { Context, SendDMail, Soul, type SoulStream } from "@kosong/soul";
import { SimpleCompaction } from "@kosong/soul/compaction";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { sessionId, testStore } from "./helpers/store.js";

const store = await testStore();

const add = defineTool({
  name: "Add",
  description: "Adds two numbers.",
  parameters: z.object({ a: z.number(), b: z.number() }),
  async execute({ a, b }) {
    return String(a + b);
  },
});

const call = (id: string, name: string, args: Record<string, unknown>) => `tool_call: ${JSON.stringify({ id, name, arguments: JSON.stringify(args) })}`;
const noWait = { initialDelayMs: 0, maxDelayMs: 0, jitterMs: 0, maxRetryAfterMs: 0 };

async function drain<R>(stream: SoulStream<R>): Promise<R> {
  for await (const _ of stream) void _;
  return stream.result;
}

/** What a restore must reproduce (positions are record indexes here, byte offsets in a file). */
function summary(state: ContextLogState) {
  return {
    messages: state.messages.map((m: Message) => serializeMessage(m)),
    tokenCount: state.tokenCount,
    systemPrompt: state.systemPrompt,
    nextCheckpointId: state.nextCheckpointId,
    checkpoints: state.checkpoints.map(({ position: _, ...rest }) => rest),
    otherRecords: state.otherRecords,
  };
}

describe("a soul on PostgresContextLog", () => {
  it("runs a turn with a tool call, a D-Mail and a compaction; the exported session restores through the JSONL reader to the same state", async () => {
    const id = sessionId();
    const context = new Context(await store.openLog(id));
    await context.restore();
    const provider = new ScriptedChatProvider([
      call("c1", "Add", { a: 2, b: 3 }),
      'text: 2 + 3 = 5\nusage: {"input_other": 120, "output": 8}',
      `text: that went badly\n${call("d1", "SendDMail", { checkpoint_id: 2, message: "Use Add with 4 and 4." })}`,
      call("c2", "Add", { a: 4, b: 4 }),
      'text: 8\nusage: {"input_other": 300, "output": 4}',
      "text: SUMMARY: the user adds numbers.",
    ]);
    const soul = new Soul({
      agent: { name: "pg", systemPrompt: "You add numbers.", toolset: new SimpleToolset([add, SendDMail]) },
      provider,
      context,
      compaction: new SimpleCompaction({ keepRecent: 2 }),
      config: { retry: noWait },
    });

    expect(await drain(soul.run("what is 2 + 3?"))).toMatchObject({ stopReason: "no_tool_calls" });
    const second = await drain(soul.run("now something else"));
    expect(second.stopReason).toBe("no_tool_calls");
    expect(context.history.some((m) => m.role === "user" && JSON.stringify(m.content).includes("Use Add with 4 and 4."))).toBe(true);
    expect(context.history.some((m) => JSON.stringify(m.content).includes("now something else"))).toBe(false);
    await drain(soul.compact());
    expect(JSON.stringify(context.history[1]!.content)).toContain("SUMMARY: the user adds numbers.");
    expect(serializeMessage(context.history.at(-1)!)).toBe('{"role":"assistant","content":"8"}');
    const history = context.history.map((m) => serializeMessage(m));
    const rotations = await context.rotations();
    expect(rotations.map((r) => r.n)).toEqual([1, 2]);
    await context.close();

    // The same session, reopened from PostgreSQL.
    const log = await store.openLog(id);
    const state = await log.read();
    await log.close();
    const reopened = new Context(await store.openLog(id));
    await reopened.restore();
    expect(reopened.history.map((m) => serializeMessage(m))).toEqual(history);
    await reopened.close();

    // Exported: a context.jsonl (and its rotations) that the JSONL reader, and a file-backed Context, restore to the same state.
    const dir = await mkdtemp(path.join(os.tmpdir(), "kosong-pg-export-"));
    const file = path.join(dir, "context.jsonl");
    const exported = await store.exportSession(id, file);
    expect(exported.rotations.map((r) => r.n)).toEqual([1, 2]);
    // A copy to import later (the file-backed Context below changes the export).
    const copy = path.join(await mkdtemp(path.join(os.tmpdir(), "kosong-pg-import-")), "context.jsonl");
    await copyFile(file, copy);
    for (const { n } of exported.rotations) await copyFile(rotationFile(file, n), rotationFile(copy, n));
    const fromFile = await readContextFile(file);
    expect(fromFile.report.skipped).toEqual([]);
    expect(summary(fromFile)).toEqual(summary(state));
    const onDisk = new Context(file);
    await onDisk.restore();
    expect(onDisk.history.map((m) => serializeMessage(m))).toEqual(history);
    expect((await onDisk.rotations()).map((r) => r.n)).toEqual([1, 2]);
    // Undoing the compaction on the file brings back what the PostgreSQL session had before it.
    await onDisk.restoreRotation(2);
    const beforeCompaction = onDisk.history.map((m) => serializeMessage(m));
    await onDisk.close();

    // Imported into a new session: the same state, rotations included.
    const imported = sessionId();
    const report = await store.importSession(imported, copy);
    expect(report.skipped).toEqual([]);
    const importedLog = await store.openLog(imported);
    expect(summary(await importedLog.read())).toEqual(summary(state));
    expect((await importedLog.listRotations()).map((r) => [r.n, r.size])).toEqual(rotations.map((r) => [r.n, r.size]));
    await importedLog.restoreRotation(2);
    expect((await importedLog.read()).messages.map((m) => serializeMessage(m))).toEqual(beforeCompaction);
    await importedLog.close();
  });
});
