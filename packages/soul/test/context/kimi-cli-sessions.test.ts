/**
 * kimi-cli's own session files (`../shared/fixtures/kimi-cli-sessions`,
 * written by kimi-cli 1.49's `Context`): they restore through our Context to
 * the state upstream restores (its documented defect aside), and the same
 * operations through our Context write the same bytes kimi-cli wrote.
 */
import { copyFile, readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseMessage, userMessage } from "@kosong/core";
import { Context } from "@kosong/soul";
import { SESSIONS, expected, upstreamView } from "./helpers/kimi-sessions.js";
import { tempDir } from "@kosong/test-support";

/** A copy of a session folder's file in a temp folder (the fixtures are read-only). */
async function copyOf(session: string, file = "context.jsonl"): Promise<string> {
  const target = path.join(await tempDir(), "context.jsonl");
  await copyFile(path.join(SESSIONS, session, file), target);
  return target;
}

async function restoredFrom(file: string): Promise<Context> {
  const context = new Context(file);
  await context.restore();
  return context;
}

/**
 * Replays a kimi-cli file through Context's methods, line by line, as kimi-cli
 * made it: `_system_prompt` -> writeSystemPrompt, `_checkpoint` (+ its
 * CHECKPOINT message) -> checkpoint, `_usage` -> updateTokenCount, a run of
 * messages -> one appendMessage.
 */
async function replay(context: Context, source: string): Promise<void> {
  const lines = (await readFile(source, "utf8")).split("\n").filter((l) => l !== "");
  for (let i = 0; i < lines.length; i += 1) {
    const record = JSON.parse(lines[i]!) as { role: string; content?: string; id?: number; token_count?: number };
    if (record.role === "_system_prompt") await context.writeSystemPrompt(record.content!);
    else if (record.role === "_usage") await context.updateTokenCount(record.token_count!);
    else if (record.role === "_checkpoint") {
      const withMessage = lines[i + 1] === JSON.stringify({ role: "user", content: `<system>CHECKPOINT ${record.id}</system>` });
      expect((await context.checkpoint({ addUserMessage: withMessage })).id).toBe(record.id);
      if (withMessage) i += 1;
    } else {
      const run = [parseMessage(record)];
      while (i + 1 < lines.length && !lines[i + 1]!.startsWith('{"role": "_')) run.push(parseMessage(lines[++i]!));
      await context.appendMessage(run);
    }
  }
}

describe("kimi-cli sessions restore through Context to upstream's state", () => {
  const cases: Array<[string, string, string]> = [
    ["basic", "context.jsonl", "restored"],
    ["agent-turns", "context.jsonl", "restored"],
    ["corrupt-lines", "context.jsonl", "restored"],
    ["revert-and-dmail", "context_1.jsonl", "restored"],
    ["revert-and-dmail", "context.jsonl", "after_dmail_restore"],
    ["clear", "context_1.jsonl", "restored"],
    ["clear", "context.jsonl", "after_clear"],
  ];

  it.each(cases)("%s/%s restores to %s", async (session, file, state) => {
    const context = await restoredFrom(await copyOf(session, file));
    expect(upstreamView(context)).toEqual(expected(session)[state]);
    await context.close();
  });

  it("agent-turns: the message upstream drops (a tool call without arguments) is kept, and its result is not orphaned", async () => {
    const context = await restoredFrom(await copyOf("agent-turns"));
    expect(context.history).toHaveLength(11);
    expect(context.history.at(-2)!.tool_calls).toEqual([{ type: "function", id: "call_3", function: { name: "Think", arguments: null } }]);
    expect(context.history.at(-1)!.tool_call_id).toBe("call_3");
    await context.close();
  });

  it("corrupt-lines: every skipped line is in the restore report, and the file is not touched", async () => {
    const file = await copyOf("corrupt-lines");
    const before = await readFile(file);
    const context = new Context(file);
    const report = await context.restore();
    expect(report.skipped.map((s) => s.kind)).toEqual(["invalid-json", "blank", "blank", "not-object", "no-role", "invalid-record"]);
    expect(report.interruptedToolCalls).toEqual([]);
    await context.close();
    expect(await readFile(file)).toEqual(before);
  });

  it("kosong-linear: kosong's plain JSONL format restores too", async () => {
    const context = await restoredFrom(await copyOf("kosong-linear", "session.jsonl"));
    const want = JSON.parse(await readFile(path.join(SESSIONS, "kosong-linear", "expected.json"), "utf8")) as { messages: unknown[]; token_count: number };
    expect(upstreamView(context).history).toEqual(want.messages);
    expect(context.tokenCount).toBe(want.token_count);
    await context.close();
  });
});

describe("the same operations through Context write kimi-cli's bytes", () => {
  it.each([["basic"], ["agent-turns"]])("%s: replaying its operations from an empty file writes the same file", async (session) => {
    const source = path.join(SESSIONS, session, "context.jsonl");
    const file = path.join(await tempDir(), "context.jsonl");
    const context = new Context(file);
    await context.restore();
    await replay(context, source);
    expect(upstreamView(context)).toEqual(expected(session).restored);
    await context.close();
    expect(await readFile(file, "utf8")).toBe(await readFile(source, "utf8"));
  });

  it("revert-and-dmail: revertTo(2), a fresh checkpoint and the D-Mail write kimi-cli's two files", async () => {
    const file = await copyOf("revert-and-dmail", "context_1.jsonl");
    const dir = path.dirname(file);
    const want = expected("revert-and-dmail");
    const context = await restoredFrom(file);

    const { rotation } = await context.revertTo(2);
    expect(path.basename(rotation.location)).toBe("context_1.jsonl");
    expect(upstreamView(context)).toEqual(want.after_revert_to_2);
    await context.checkpoint({ addUserMessage: true });
    await context.appendMessage(userMessage("<system>You just got a D-Mail from your future self.</system>"));
    // Live, the estimate adds up per appended batch (as kimi-cli's does): 1273 + 29 // 4 + 61 // 4. A restore
    // estimates everything after the last usage at once: 1260 + (17 + 38 + 29 + 61) // 4 = 1296, as upstream.
    expect(upstreamView(context)).toEqual({ ...want.after_dmail_restore, token_count_with_pending: 1273 + 7 + 15 });
    await context.close();

    expect((await readdir(dir)).filter((f) => f.endsWith(".jsonl")).sort()).toEqual(want.files);
    for (const name of want.files) {
      expect(await readFile(path.join(dir, name), "utf8")).toBe(await readFile(path.join(SESSIONS, "revert-and-dmail", name), "utf8"));
    }
    const again = await restoredFrom(file);
    expect(upstreamView(again)).toEqual(want.after_dmail_restore);
    await again.close();
  });

  it("clear: clear() and a new system prompt write kimi-cli's two files, and restoreRotation(1) undoes the clear", async () => {
    const file = await copyOf("clear", "context_1.jsonl");
    const dir = path.dirname(file);
    const want = expected("clear");
    const context = await restoredFrom(file);
    expect(upstreamView(context)).toEqual(want.restored);

    await context.clear();
    await context.writeSystemPrompt("New prompt");
    expect(upstreamView(context)).toEqual(want.after_clear);
    expect((await readdir(dir)).filter((f) => f.endsWith(".jsonl")).sort()).toEqual(want.files);
    for (const name of want.files) {
      expect(await readFile(path.join(dir, name), "utf8")).toBe(await readFile(path.join(SESSIONS, "clear", name), "utf8"));
    }

    await context.restoreRotation(1);
    expect(upstreamView(context)).toEqual(want.restored);
    await context.close();
    const again = await restoredFrom(file);
    expect(upstreamView(again)).toEqual(want.restored);
    await again.close();
  });

  it("a session continues on top of each restored file, and kimi-cli's fold of the result agrees", async () => {
    for (const session of ["basic", "agent-turns", "revert-and-dmail", "clear", "corrupt-lines"]) {
      const file = await copyOf(session);
      const context = await restoredFrom(file);
      const id = context.nCheckpoints;
      await context.checkpoint({ addUserMessage: true });
      await context.appendMessage(userMessage("and now?"));
      await context.updateTokenCount(2000);
      const state = upstreamView(context);
      await context.close();
      const again = await restoredFrom(file);
      expect(upstreamView(again)).toEqual(state);
      expect(again.history.slice(-2).map((m) => m.content)).toEqual([
        [{ type: "text", text: `<system>CHECKPOINT ${id}</system>` }],
        [{ type: "text", text: "and now?" }],
      ]);
      await again.close();
    }
  });
});
