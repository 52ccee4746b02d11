/**
 * `/checkpoints` on a long session (a real kimi-cli conversation file with
 * thousands of checkpoints, resumed in place, each marked in the session's
 * file journal as a live session marks them): every checkpoint is listed
 * once, in order, each naming what a revert to it drops.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { ScriptedChatProvider } from "@kosong/core/testing";
import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { openAgentSession } from "../src/agent/agent-session.js";
import { resolveSettings } from "../src/config/settings.js";
import { ScriptedTypist } from "../src/demo/scripted-typist.js";
import { InteractiveSession } from "../src/modes/interactive/interactive-session.js";
import { runLoop } from "../src/modes/interactive/run-interactive.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

/** A conversation of `prompts` turns: checkpoint 2i before prompt i, checkpoint 2i+1 (a step's) before its answer. */
function conversation(prompts: number): string {
  const lines: string[] = [];
  for (let i = 0; i < prompts; i++) {
    lines.push(`{"role": "_checkpoint", "id": ${2 * i}}`, `{"role": "user", "content": "prompt ${i}"}`);
    lines.push(`{"role": "_checkpoint", "id": ${2 * i + 1}}`, `{"role": "assistant", "content": "answer ${i}"}`);
  }
  return `${lines.join("\n")}\n`;
}

describe("/checkpoints on a session with many checkpoints", () => {
  it("lists all 5,000, in order, each with what a revert drops", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "work");
    await mkdir(cwd);
    const file = path.join(home, "context.jsonl");
    await writeFile(file, conversation(2_500));
    const settings = await resolveSettings({ provider: "scripted", script: "unused" }, { KOSONG_HOME: path.join(home, ".kosong") });
    const providers = { main: new ScriptedChatProvider([]), compact: null, maxContextSize: 10_000 };
    const agent = await openAgentSession({ settings, providers, choice: { kind: "resume-file", file }, cwd });
    const journal = agent.context.fileJournal!;
    for (let id = 0; id < 5_000; id++) await journal.markCheckpoint(id);
    let out = "";
    const sink = { write: (chunk: string) => ((out += chunk), true), columns: 100, rows: 30, isTTY: false } as unknown as NodeJS.WriteStream;
    const style = pc.createColors(false);
    const typist = new ScriptedTypist(["/checkpoints", "/checkpoints all", "/exit"].map((text) => ({ text })), sink, style, { perCharMs: 0, pauseMs: 0 });
    try {
      await runLoop(new InteractiveSession(agent, typist, sink, style));
    } finally {
      await agent.close();
    }
    const section = (command: string) => out.slice(out.indexOf(`› ${command}\n`) + command.length + 3).split("\n› ")[0]!.split("\n");
    const listed = (lines: string[]) => lines.filter((line) => line.startsWith("checkpoint "));

    const prompts = listed(section("/checkpoints"));
    expect(prompts).toHaveLength(2_500);
    expect(prompts[0]).toBe('checkpoint 0 · 0 messages before it · drops "prompt 0" onward');
    expect(prompts[1]).toBe('checkpoint 2 · 2 messages before it · drops "prompt 1" onward');
    expect(prompts.at(-1)).toBe('checkpoint 4998 · 4998 messages before it · drops "prompt 2499" onward');
    expect(section("/checkpoints")).toContain("(2500 checkpoints before a prompt shown; 2500 more between steps: /checkpoints all)");

    const all = listed(section("/checkpoints all"));
    expect(all).toHaveLength(5_000);
    expect(all.map((line) => Number(line.split(" ")[1]))).toEqual(Array.from({ length: 5_000 }, (_, i) => i));
    expect(all[1]).toBe('checkpoint 1 · 1 message before it · drops the answer to "prompt 0" onward');
    expect(all.at(-1)).toBe('checkpoint 4999 · 4999 messages before it · drops the answer to "prompt 2499" onward');
  }, 60_000);
});
