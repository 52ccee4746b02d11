/**
 * A soul picks up kimi-cli's sessions where kimi-cli left them: a turn with a
 * tool call (and a D-Mail) runs on top of each fixture, every request it
 * sends is a valid conversation, and the file it leaves restores to the same
 * history.
 */
import { copyFile } from "node:fs/promises";
import path from "node:path";
import { defineTool, extractText, SimpleToolset, toolOk } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { Context, SendDMail, Soul } from "@kosong/soul";
import { validateConversation } from "@kosong/soul/conversation";
import { dmailMessage } from "@kosong/soul/internal";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { SESSIONS } from "../context/helpers/kimi-sessions.js";
import { call, collect, ofType, script, tempDir } from "./helpers.js";

const files: Array<[string, string]> = [
  ["basic", "context.jsonl"],
  ["agent-turns", "context.jsonl"],
  ["revert-and-dmail", "context.jsonl"],
  ["clear", "context.jsonl"],
  ["corrupt-lines", "context.jsonl"],
  ["kosong-linear", "session.jsonl"],
];

const look = defineTool({ name: "Look", description: "Looks.", parameters: z.object({}), execute: () => toolOk("seen") });

describe("a soul on kimi-cli's sessions", () => {
  it.each(files)("%s: a turn with a tool call and a D-Mail continues the session", async (name, file) => {
    const target = path.join(await tempDir(), "context.jsonl");
    await copyFile(path.join(SESSIONS, name, file), target);
    const context = new Context(target);
    await context.restore();
    const before = context.history.length;
    const storedPrompt = context.systemPrompt;
    const turnCheckpoint = context.nCheckpoints;

    const provider = new ScriptedChatProvider([
      script("text: looking", call("c1", "Look")),
      call("d1", "SendDMail", { checkpoint_id: turnCheckpoint, message: "seen it" }),
      "text: done",
    ]);
    const toolset = new SimpleToolset([look, SendDMail]);
    const soul = new Soul({ agent: { name: "kimi", systemPrompt: "agent prompt", toolset }, provider, context, config: { retry: { initialDelayMs: 0, jitterMs: 0 } } });
    const { result, events } = await collect(soul.run("please go on"));

    expect(result.stopReason).toBe("no_tool_calls");
    expect(ofType(events, "Reverted")).toHaveLength(1);
    for (const request of provider.calls) {
      expect(request.systemPrompt).toBe(storedPrompt ?? "agent prompt");
      expect(validateConversation(request.history)).toEqual([]);
    }
    // Back at the turn's checkpoint: the session as restored, then the D-Mail and the answer.
    expect(context.history.slice(before).map((m) => extractText(m))).toEqual([
      `<system>CHECKPOINT ${turnCheckpoint}</system>`,
      extractText(dmailMessage({ checkpoint_id: turnCheckpoint, message: "seen it" })),
      `<system>CHECKPOINT ${turnCheckpoint + 1}</system>`,
      "done",
    ]);
    const history = context.history.map((m) => structuredClone(m));
    await context.close();

    const reread = new Context(target);
    await reread.restore();
    expect(reread.history).toEqual(history);
    await reread.close();
  });
});
