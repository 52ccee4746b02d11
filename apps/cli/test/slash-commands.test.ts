import { mkdir } from "node:fs/promises";
import path from "node:path";
import { extractText } from "@kosong/core";
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

describe("slash commands on a real session (scripted model, real JSONL)", () => {
  it("status, context, strategy, checkpoints, clear, rotations, restore, yolo, sessions, unknown, exit", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "work");
    await mkdir(cwd);
    const settings = await resolveSettings({ provider: "scripted", script: "unused" }, { KOSONG_HOME: path.join(home, ".kosong") });
    const provider = new ScriptedChatProvider(["text: hi there"]);
    const agent = await openAgentSession({ settings, providers: { main: provider, compact: null, maxContextSize: 10_000 }, choice: { kind: "new" }, cwd });
    let out = "";
    const sink = { write: (chunk: string) => ((out += chunk), true), columns: 100, rows: 30, isTTY: false } as unknown as NodeJS.WriteStream;
    const style = pc.createColors(false);
    const lines = ["hello", "/status", "/context", "/strategy preserve-recent", "/strategy bogus", "/checkpoints", "/clear", "/rotations", "/restore 1", "/yolo", "/sessions", "/stat", "/exit", "never typed"];
    const typist = new ScriptedTypist(lines.map((text) => ({ text })), sink, style, { perCharMs: 0, pauseMs: 0 });
    const session = new InteractiveSession(agent, typist, sink, style);
    const section = (command: string) => out.slice(out.indexOf(`› ${command}\n`) + command.length + 3).split("\n› ")[0]!;
    try {
      await runLoop(session);
      expect(section("hello")).toMatch(/^hi there\n\nscripted_echo · [▰▱]{10} /);
      expect(section("/status")).toContain(`working directory ${cwd}`);
      expect(section("/status")).toContain(`conversation file ${agent.contextFile}`);
      expect(section("/context")).toMatch(/<context name="environment">\s+\d+ characters from working directory/);
      expect(section("/strategy preserve-recent")).toBe("Compaction strategy: preserve-recent");
      expect(section("/strategy bogus")).toMatch(/Strategy now: preserve-recent\. Choose one of: simple, preserve-recent/);
      expect(section("/checkpoints")).toMatch(/checkpoint 0 · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · 0 messages before it/);
      expect(section("/clear")).toBe("Conversation cleared. /restore 1 brings it back.");
      expect(section("/rotations")).toMatch(/^1 {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}\d+ bytes/);
      expect(section("/restore 1")).toMatch(/^Restored rotation 1; the replaced conversation is rotation 2\. 2 messages\./);
      expect(agent.context.history.map((m) => extractText(m))).toEqual(["hello", "hi there"]);
      expect(section("/yolo")).toBe("yolo on: tools run without asking");
      expect(agent.soul.approval.yolo).toBe(true);
      expect(section("/sessions")).toContain(agent.displayId);
      expect(section("/stat")).toBe("Unknown command /stat. Did you mean /status? /help lists the commands.");
      expect(out).toContain(`Session saved: ${agent.displayId}`);
      expect(out).not.toContain("never typed");
      expect(agent.compaction.choice).toBe("preserve-recent");
    } finally {
      await agent.close();
    }

    // The /strategy choice is saved with the session: a resume uses it, unless a setting names a strategy.
    const providers = { main: new ScriptedChatProvider([]), compact: null, maxContextSize: 10_000 };
    const resume = { kind: "resume", id: agent.displayId } as const;
    const resumed = await openAgentSession({ settings, providers, choice: resume, cwd });
    expect(resumed.compaction.choice).toBe("preserve-recent");
    await resumed.close();
    const overridden = await openAgentSession({ settings: { ...settings, compaction: "smart" }, providers, choice: resume, cwd });
    expect(overridden.compaction.choice).toBe("smart");
    await overridden.close();
    const fresh = await openAgentSession({ settings, providers, choice: { kind: "new" }, cwd });
    expect(fresh.compaction.choice).toBe("simple");
    await fresh.close();
  });
});
