/**
 * kimi-cli reads what we write: files written here are restored by a Python
 * stand-in for kimi-cli (its `Context.restore()` loop and kosong's pydantic
 * `Message`, in `python/kimi_context_restore.py`) to the state we restore,
 * and every message line is exactly what kosong's `model_dump_json` writes
 * for that message. This reaches content the recorded fixtures do not have
 * (every part type, names, extras, `partial`, control characters, U+2028,
 * astral characters) and files after revert, prepend and rotation restore.
 * The stand-in is first checked against the fixtures that kimi-cli wrote.
 *
 * Needs Python 3 with pydantic 2 (`KOSONG_PYTHON` picks the interpreter);
 * skipped, saying so, without it.
 */
import { execFile, spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  assistantMessage,
  audioURLPart,
  imageURLPart,
  textPart,
  thinkPart,
  toolCall,
  toolMessage,
  userMessage,
  videoURLPart,
  type Message,
} from "@kosong/core";
import { JsonlContextFile, type ContextLogState } from "@kosong/context";
import { checkpointRecord, messageRecord, otherRecord, readContextFile, systemPromptRecord, usageRecord } from "@kosong/context/records";
import { KIMI_SESSION_NAMES, asKosongJson, kimiSession, withUpstreamDefect, type ExpectedState } from "./helpers/kimi-sessions.js";
import { tempDir } from "@kosong/test-support";

const script = fileURLToPath(new URL("./python/kimi_context_restore.py", import.meta.url));
// The first interpreter with pydantic 2: KOSONG_PYTHON, python3 on PATH, then pyenv's shim
// (a stripped PATH may miss it, and the system python3 has no pydantic).
const candidates = process.env.KOSONG_PYTHON ? [process.env.KOSONG_PYTHON] : ["python3", path.join(os.homedir(), ".pyenv/shims/python3")];
const python = candidates.find(
  (candidate) => spawnSync(candidate, ["-c", "import pydantic, sys; sys.exit(0 if pydantic.VERSION.startswith('2') else 1)"]).status === 0,
);
const available = python !== undefined;
if (!available) console.warn(`kimi-cli-python: skipped, no Python with pydantic 2 among ${candidates.join(", ")}`);

interface KimiState {
  history: unknown[];
  token_count: number;
  n_checkpoints: number;
  system_prompt: string | null;
  /** Message lines that kosong would write differently. */
  not_rewritten: Array<{ line: number; kimi: string }>;
  /** Line numbers of messages kimi-cli drops (they do not validate there). */
  dropped: number[];
}

async function kimiRestore(...files: string[]): Promise<KimiState[]> {
  const { stdout } = await promisify(execFile)(python!, [script, ...files]);
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as KimiState);
}

/**
 * kimi-cli restores each file to our state (but for the messages it cannot
 * validate, which it drops) and would write each message line as it is.
 */
async function expectSameStateInKimi(...files: string[]): Promise<Array<{ ours: ContextLogState; kimi: KimiState }>> {
  const states = await kimiRestore(...files);
  return Promise.all(
    files.map(async (file, i) => {
      const kimi = states[i]!;
      const ours = await readContextFile(file);
      expect(ours.report.skipped, file).toEqual([]);
      expect(kimi.not_rewritten, file).toEqual([]);
      expect(kimi.history, file).toEqual(asKosongJson(withUpstreamDefect(ours.messages)));
      expect([kimi.token_count, kimi.n_checkpoints, kimi.system_prompt], file).toEqual([ours.tokenCount, ours.nextCheckpointId, ours.systemPrompt]);
      return { ours, kimi };
    }),
  );
}

const tricky = 'quotes " and \\ backslash, tab\t newline\n CR\r NUL\u0000 ESC\u001b DEL\u007f NEL\u0085 LS\u2028 PS\u2029 BOM\ufeff 你好 é 😀 𝄞 </script>';

/** Every kind of message content, as a session builds it. */
function session(): Message[] {
  const withName: Message = { ...userMessage("I am named"), name: "alice" };
  const partial: Message = { ...assistantMessage("cut off mid-str"), partial: true };
  const extras = toolCall("call_x", "Fetch", { url: "https://example.com/?q=a&b=ü" });
  extras.extras = { index: 2, nested: { list: [1, "two", null, true], "ключ": "значение" } };
  return [
    userMessage(tricky),
    userMessage([textPart("two"), textPart("text parts")]),
    userMessage([textPart("look"), imageURLPart("data:image/png;base64,iVBORw0KGgo="), imageURLPart("https://e.x/a.png", "img-1")]),
    userMessage([audioURLPart("data:audio/aac;base64,AAAA", "aud"), videoURLPart("https://e.x/v.mp4")]),
    assistantMessage(
      [thinkPart(`thinking ${tricky}`), thinkPart("signed", "c2lnbmF0dXJl"), textPart("Calling tools.")],
      [toolCall("call_1", "Shell", { command: "ls -la | grep é" }), extras, toolCall("call_2", "Empty", "")],
    ),
    toolMessage("call_1", `a.py\nb.py\n${tricky}`),
    toolMessage("call_x", [textPart("part one"), textPart("part two")]),
    toolMessage("call_2", []),
    withName,
    partial,
    { role: "system", content: [textPart("a system message in the middle")] },
    assistantMessage([], [toolCall("call_3", "Think")]), // no arguments: kimi-cli drops this one (documented defect)
    toolMessage("call_3", "thought"),
  ];
}

describe.skipIf(!available)("kimi-cli restores files written here to the same state", () => {
  it("the Python stand-in restores kimi-cli's own files to upstream's expected state and writes their message lines back unchanged", async () => {
    const names = KIMI_SESSION_NAMES.filter((n) => n !== "corrupt-lines");
    const states = await kimiRestore(...names.map((name) => path.join(kimiSession(name).dir, "context.jsonl")));
    for (const [i, name] of names.entries()) {
      const { expected } = kimiSession(name);
      const state = states[i];
      const restored = (name === "revert-and-dmail" ? expected.after_dmail_restore : name === "clear" ? expected.after_clear : expected.restored) as ExpectedState;
      expect({ ...state, not_rewritten: undefined, dropped: undefined }, name).toEqual({
        history: restored.history,
        token_count: restored.token_count,
        n_checkpoints: restored.n_checkpoints,
        system_prompt: restored.system_prompt,
      });
      expect(state!.not_rewritten, name).toEqual([]);
    }
  });

  it("a session with every kind of content and record: same state, every message line byte-identical to kosong's", async () => {
    const file = path.join(await tempDir(), "context.jsonl");
    const ctx = await JsonlContextFile.open(file);
    await ctx.append([systemPromptRecord(`You are Kimi. ${tricky}`)]);
    let id = 0;
    for (const [i, message] of session().entries()) {
      if (i % 4 === 0) {
        // Every other checkpoint carries a label, an extra key that kimi-cli ignores.
        await ctx.append([checkpointRecord(id, id % 2 === 0 ? `turn ${id} ${tricky}` : undefined)]);
        id += 1;
      }
      if (i === 6) await ctx.append([systemPromptRecord("a later system prompt wins")]);
      if (i === 9) await ctx.append([otherRecord({ role: "_meta", note: "kept here, ignored by the state" })]);
      await ctx.append([messageRecord(message), usageRecord(100 + i)]);
    }
    await ctx.close();
    const [{ ours, kimi }] = (await expectSameStateInKimi(file)) as [{ ours: ContextLogState; kimi: KimiState }];
    expect(ours.messages).toHaveLength(session().length);
    expect(kimi.history).toHaveLength(session().length - 1);
    // kimi-cli has no other `_` records: it reads one as a message that does not validate, and drops it.
    const lines = (await readFile(file, "utf8")).split("\n");
    const lineOf = (text: string) => lines.findIndex((l) => l.includes(text)) + 1;
    expect(kimi.dropped).toEqual([lineOf('"role": "_meta"'), lineOf('"name":"Think"}')]);
    expect(ours.otherRecords).toBe(1);
  });

  it("after a revert, a prepended system prompt, a clear and a restored rotation, every file restores the same in kimi-cli", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "context.jsonl");
    const ctx = await JsonlContextFile.open(file);
    const messages = session().slice(0, -2);
    for (const [i, message] of messages.entries()) {
      await ctx.append([checkpointRecord(i), messageRecord(message), usageRecord(10 * i)]);
    }
    const mark = (await ctx.read()).checkpoints.find((c) => c.id === 5)!;
    await ctx.truncateAndRotate(mark.position);
    await ctx.append([checkpointRecord(5), messageRecord(userMessage(`<system>CHECKPOINT 5</system> ${tricky}`))]);
    await ctx.prepend([systemPromptRecord("late prompt 😀")]);
    const cleared = await ctx.truncateAndRotate(0);
    await ctx.append([systemPromptRecord("New prompt")]);
    await ctx.restoreRotation(cleared.n);
    const rotations = await ctx.listRotations();
    await ctx.close();

    const files = [file, ...rotations.map((r) => r.location)];
    expect(files.map((f) => path.basename(f))).toEqual(["context.jsonl", "context_1.jsonl", "context_2.jsonl", "context_3.jsonl"]);
    const [current] = await expectSameStateInKimi(...files);
    // The current file is the cleared one restored: the revert to checkpoint 5, its new checkpoint and the late prompt.
    expect(current!.kimi).toMatchObject({ n_checkpoints: 6, token_count: 40, system_prompt: "late prompt 😀" });
    expect(current!.kimi.history).toHaveLength(6);
  });
});
