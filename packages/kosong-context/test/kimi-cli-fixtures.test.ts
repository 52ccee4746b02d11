/**
 * Compatibility with kimi-cli and kosong session files, written by the real
 * upstream code (`../shared/fixtures/kimi-cli-sessions`): they restore to the
 * upstream state, and what we write for the same operations is byte-identical
 * to what kimi-cli wrote, so kimi-cli restores our files to the same state.
 * The soul's Context tests can extend this table with `token_count_with_pending`.
 */
import { copyFile, readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { userMessage } from "@kosong/core";
import { JsonlContextFile, JsonlLinearStorage, type ContextLogState } from "@kosong/context";
import { checkpointRecord, messageRecord, readContextFile, scanContextFile, systemPromptRecord, type ContextRecord } from "@kosong/context/records";
import { fixture, tempDir } from "@kosong/test-support";
import { KIMI_SESSION_NAMES, asKosongJson, kimiSession, textChars, withUpstreamDefect, type ExpectedState } from "./helpers/kimi-sessions.js";

/** Asserts the part of an upstream state that the storage layer owns. */
function expectState(state: ContextLogState, expected: ExpectedState): void {
  expect(asKosongJson(withUpstreamDefect(state.messages))).toEqual(expected.history);
  expect(state.tokenCount).toBe(expected.token_count);
  expect(state.nextCheckpointId).toBe(expected.n_checkpoints);
  expect(state.systemPrompt).toBe(expected.system_prompt);
  // What the soul needs for kimi-cli's pending estimate is all here.
  const pending = Math.floor(textChars(state.messages.slice(state.messagesBeforeLastUsage)) / 4);
  expect(state.tokenCount + pending).toBe(expected.token_count_with_pending);
}

async function records(file: string): Promise<{ records: ContextRecord[]; keptLines: string[] }> {
  const out: ContextRecord[] = [];
  const lines = (await readFile(file, "utf8")).split("\n");
  const keptLines: string[] = [];
  await scanContextFile(file, (s) => {
    out.push(s.record);
    keptLines.push(lines[s.line - 1]!);
  });
  return { records: out, keptLines };
}

/** Which `expected.json` state each file restores to (`restored` is the state before a revert or clear). */
const STATES: Record<(typeof KIMI_SESSION_NAMES)[number], Record<string, string>> = {
  basic: { "context.jsonl": "restored" },
  "agent-turns": { "context.jsonl": "restored" },
  "corrupt-lines": { "context.jsonl": "restored" },
  "revert-and-dmail": { "context_1.jsonl": "restored", "context.jsonl": "after_dmail_restore" },
  clear: { "context_1.jsonl": "restored", "context.jsonl": "after_clear" },
};

describe("kimi-cli session fixtures", () => {
  for (const name of KIMI_SESSION_NAMES) {
    const session = kimiSession(name);

    it(`${name}: every file restores to upstream's state`, async () => {
      for (const [file, key] of Object.entries(STATES[name])) {
        expectState(await readContextFile(path.join(session.dir, file)), session.expected[key] as ExpectedState);
      }
    });

    it(`${name}: rewriting its records reproduces kimi-cli's bytes`, async () => {
      for (const file of session.files) {
        const source = path.join(session.dir, file);
        const { records: recs, keptLines } = await records(source);
        const dir = await tempDir();
        const target = await JsonlContextFile.open(path.join(dir, file));
        await target.append(recs);
        await target.close();
        expect(await readFile(path.join(dir, file), "utf8")).toBe(keptLines.map((l) => `${l}\n`).join(""));
      }
    });
  }

  it("agent-turns: keeps the assistant message whose tool call has no arguments (upstream drops it)", async () => {
    const state = await readContextFile(fixture("kimi-cli-sessions/agent-turns/context.jsonl"));
    expect(state.messages).toHaveLength(11);
    expect(state.messages[9]).toEqual({
      role: "assistant",
      content: [],
      tool_calls: [{ type: "function", id: "call_3", function: { name: "Think", arguments: null } }],
    });
    expect(state.report.skipped).toEqual([]);
  });

  it("revert-and-dmail: revert_to(2) then a D-Mail, replayed on the record API, gives kimi-cli's files byte for byte", async () => {
    const session = kimiSession("revert-and-dmail");
    const dir = await tempDir();
    const current = path.join(dir, "context.jsonl");
    await copyFile(path.join(session.dir, "context_1.jsonl"), current);
    const file = await JsonlContextFile.open(current);
    const before = await file.read();
    expectState(before, session.expected.restored);

    const mark = before.checkpoints.find((c) => c.id === 2)!;
    const rotation = await file.truncateAndRotate(mark.position);
    expect(rotation).toEqual({ n: 1, location: path.join(dir, "context_1.jsonl"), positions: [], end: mark.position });
    const reverted = await file.read();
    expectState(reverted, session.expected.after_revert_to_2 as ExpectedState);
    expect(reverted.messages).toHaveLength(mark.messageCount);
    expect(reverted.tokenCount).toBe(mark.tokenCount);
    expect(reverted.nextCheckpointId).toBe(mark.nextCheckpointId);

    await file.append([checkpointRecord(2)]);
    await file.append([messageRecord(userMessage("<system>CHECKPOINT 2</system>"))]);
    await file.append([messageRecord(userMessage("<system>You just got a D-Mail from your future self.</system>"))]);
    expectState(await file.read(), session.expected.after_dmail_restore as ExpectedState);
    await file.close();

    for (const name of ["context.jsonl", "context_1.jsonl"]) {
      expect(await readFile(path.join(dir, name))).toEqual(await readFile(path.join(session.dir, name)));
    }
    expect((await readdir(dir)).sort()).toEqual(session.expected.files);
  });

  it("clear: clear() then a new system prompt, replayed on the record API, gives kimi-cli's files byte for byte", async () => {
    const session = kimiSession("clear");
    const dir = await tempDir();
    const current = path.join(dir, "context.jsonl");
    await copyFile(path.join(session.dir, "context_1.jsonl"), current);
    const file = await JsonlContextFile.open(current);
    await file.truncateAndRotate(0);
    expect(file.size).toBe(0);
    await file.append([systemPromptRecord("New prompt")]);
    expectState(await file.read(), session.expected.after_clear as ExpectedState);
    await file.close();
    for (const name of ["context.jsonl", "context_1.jsonl"]) {
      expect(await readFile(path.join(dir, name))).toEqual(await readFile(path.join(session.dir, name)));
    }
    expect((await readdir(dir)).sort()).toEqual(session.expected.files);
  });

  it("corrupt-lines: skips and reports each bad line with its line number, keeps the rest, leaves the file alone", async () => {
    const file = fixture("kimi-cli-sessions/corrupt-lines/context.jsonl");
    const bytes = await readFile(file);
    const state = await readContextFile(file);
    expect(state.report.skipped.map((s) => [s.line, s.kind])).toEqual([
      [7, "invalid-json"],
      [8, "blank"],
      [9, "blank"],
      [10, "not-object"],
      [11, "no-role"],
      [12, "invalid-record"],
    ]);
    expect(state.report.lines).toBe(14);
    expect(state.report.records).toBe(8);
    expect(state.report.skipped[5]!.reason).toContain("token_count");
    expect(await readFile(file)).toEqual(bytes);
  });
});

describe("kosong linear fixture", () => {
  const dir = fixture("kimi-cli-sessions/kosong-linear");

  it("restores through the same reader", async () => {
    const expected = JSON.parse(await readFile(path.join(dir, "expected.json"), "utf8")) as { messages: unknown[]; token_count: number };
    const state = await readContextFile(path.join(dir, "session.jsonl"));
    expect(asKosongJson(state.messages)).toEqual(expected.messages);
    expect(state.tokenCount).toBe(expected.token_count);
    expect(state.report.skipped).toEqual([]);
  });

  it("restores in JsonlLinearStorage, and its copy written here reads back the same in both styles", async () => {
    const work = await tempDir();
    const target = path.join(work, "session.jsonl");
    await copyFile(path.join(dir, "session.jsonl"), target);
    const storage = new JsonlLinearStorage(target);
    await storage.restore();
    const expected = JSON.parse(await readFile(path.join(dir, "expected.json"), "utf8")) as { messages: unknown[]; token_count: number };
    expect(asKosongJson(storage.messages)).toEqual(expected.messages);
    expect(storage.tokenCount).toBe(140);
    await storage.close();

    const copy = path.join(work, "copy.jsonl");
    const writer = new JsonlLinearStorage(copy);
    await writer.appendMessage(storage.messages[0]!);
    await writer.markTokenCount(128);
    await writer.appendMessage(storage.messages[1]!);
    await writer.markTokenCount(140);
    await writer.close();
    const ours = (await readFile(copy, "utf8")).split("\n");
    const theirs = (await readFile(target, "utf8")).split("\n");
    // Messages are byte-identical; `_usage` lines use kimi-cli's spaced style and parse to the same objects.
    expect(ours.map((l) => (l ? JSON.parse(l) : l))).toEqual(theirs.map((l) => (l ? JSON.parse(l) : l)));
    expect([ours[0], ours[2]]).toEqual([theirs[0], theirs[2]]);
  });
});
