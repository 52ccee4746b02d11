/**
 * Files restored with the conversation in the interactive CLI, on a real
 * session and real files: /checkpoints names the file the agent wrote,
 * /revert lists it and asks (no: nothing reverted; yes: conversation and
 * file back), /restore brings the later file back after asking, and with
 * --no-file-restore only the conversation is reverted.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
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
const writeCall = `tool_call: ${JSON.stringify({ id: "w1", name: "WriteFile", arguments: JSON.stringify({ path: "a.txt", content: "by the agent\n" }) })}`;

async function run(lines: string[], flags: { fileRestore?: boolean } = {}) {
  const home = await tempDir();
  const cwd = path.join(home, "work");
  await mkdir(cwd);
  await writeFile(path.join(cwd, "a.txt"), "mine\n");
  const settings = await resolveSettings({ provider: "scripted", script: "unused", yolo: true, ...flags }, { KOSONG_HOME: path.join(home, ".kosong") });
  const provider = new ScriptedChatProvider([writeCall, "text: done"]);
  const agent = await openAgentSession({ settings, providers: { main: provider, compact: null, maxContextSize: 10_000 }, choice: { kind: "new" }, cwd });
  let out = "";
  const sink = { write: (chunk: string) => ((out += chunk), true), columns: 100, rows: 30, isTTY: false } as unknown as NodeJS.WriteStream;
  const style = pc.createColors(false);
  const typist = new ScriptedTypist(lines.map((text) => ({ text })), sink, style, { perCharMs: 0, pauseMs: 0 });
  try {
    await runLoop(new InteractiveSession(agent, typist, sink, style));
  } finally {
    await agent.close();
  }
  return { out, file: path.join(cwd, "a.txt"), agent };
}

describe("files restored by /revert and /restore", () => {
  it("lists the files, asks, restores them, and /restore brings them back", async () => {
    const { out, file } = await run(["write it", "/checkpoints", "/revert 0", "n", "/revert 0", "y", "/restore 1", "y", "/exit"]);
    expect(out).toMatch(/checkpoint 1 · 1 messages before it · drops the answer to "write it" onward · changed: a\.txt/);
    const asked = out.split("› /revert 0\n");
    expect(asked[1]).toMatch(/^Files that will be restored:\n {2}↺ a\.txt\n/);
    expect(asked[1]).toContain("Nothing reverted.");
    expect(asked[2]).toContain("Files that were restored:\n  ↺ a.txt");
    expect(out.split("› /restore 1\n")[1]).toMatch(/^Files that will be restored:\n {2}↺ a\.txt\n/);
    // After /restore 1 the file is the agent's again.
    expect(await readFile(file, "utf8")).toBe("by the agent\n");
  });

  it("reverts the file with the conversation, and leaves it with --no-file-restore", async () => {
    const restored = await run(["write it", "/revert 0", "y", "/exit"]);
    expect(await readFile(restored.file, "utf8")).toBe("mine\n");
    const off = await run(["write it", "/revert 0", "/exit"], { fileRestore: false });
    expect(off.out).not.toContain("Files that");
    expect(await readFile(off.file, "utf8")).toBe("by the agent\n");
  });
});
