/**
 * Files restored with the conversation in the interactive CLI, on a real
 * session and real files: /checkpoints names the file the agent wrote,
 * /revert lists it and asks (no: nothing reverted; yes: conversation and
 * file back), /restore brings the later file back after asking, and with
 * --no-file-restore only the conversation is reverted. What a Shell command
 * changed (found by the scan around it) is restored too, but for the files
 * the root .gitignore ignores; over the scan's limit the tool result says
 * the command is not journaled.
 */
import { chmod, mkdir, readFile, readdir, stat, writeFile } from "node:fs/promises";
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

async function run(lines: string[], flags: { fileRestore?: boolean } = {}, call = writeCall, prepare?: (cwd: string) => Promise<void>) {
  const home = await tempDir();
  const cwd = path.join(home, "work");
  await mkdir(cwd);
  await writeFile(path.join(cwd, "a.txt"), "mine\n");
  await prepare?.(cwd);
  const settings = await resolveSettings({ provider: "scripted", script: "unused", yolo: true, ...flags }, { KOSONG_HOME: path.join(home, ".kosong") });
  const provider = new ScriptedChatProvider([call, "text: done"]);
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
  return { out, cwd, file: path.join(cwd, "a.txt"), agent };
}

describe("files restored by /revert and /restore", () => {
  it("lists the files, asks, restores them, and /restore brings them back", async () => {
    const { out, file } = await run(["write it", "/checkpoints all", "/revert 0", "n", "/revert 0", "y", "/restore 1", "y", "/exit"]);
    expect(out).toMatch(/checkpoint 1 · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · 1 message before it · drops the answer to "write it" onward · changed: a\.txt/);
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

const shellCall = (command: string) => `tool_call: ${JSON.stringify({ id: "s1", name: "Shell", arguments: JSON.stringify({ command }) })}`;

/** Each entry of `dir` (flat): name -> mode and content. */
async function listing(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await readdir(dir)) out[name] = `${((await stat(path.join(dir, name))).mode & 0o777).toString(8)}:${await readFile(path.join(dir, name), "utf8")}`;
  return out;
}

describe("files a Shell command changed, restored by /revert", () => {
  it("undoes a write, an in-place edit, a delete, a chmod and a rename, but not an ignored file", async () => {
    const command = "echo x > new.txt; sed -i s/mine/theirs/ a.txt; rm gone.txt; chmod +x run.sh; mv b.txt c.txt; echo later >> debug.log";
    let before: Record<string, string> = {};
    const prepare = async (cwd: string) => {
      await writeFile(path.join(cwd, ".gitignore"), "*.log\n");
      await writeFile(path.join(cwd, "gone.txt"), "delete me\n");
      await writeFile(path.join(cwd, "run.sh"), "#!/bin/sh\n");
      await chmod(path.join(cwd, "run.sh"), 0o644);
      await writeFile(path.join(cwd, "b.txt"), "renamed\n");
      await writeFile(path.join(cwd, "debug.log"), "log\n");
      before = await listing(cwd);
    };
    const { out, cwd } = await run(["run it", "/revert 0", "y", "/exit"], {}, shellCall(command), prepare);
    expect(out).toContain("Files that were restored:");
    const after = await listing(cwd);
    expect(after["debug.log"]).toBe("644:log\nlater\n");
    expect({ ...after, "debug.log": "" }).toEqual({ ...before, "debug.log": "" });
  });

  it("says in the tool result when the workspace is over the scan's limit, and journals nothing", async () => {
    const prepare = async (cwd: string) => {
      await mkdir(path.join(cwd, "many"));
      await Promise.all(Array.from({ length: 2001 }, (_, i) => writeFile(path.join(cwd, "many", String(i)), "")));
    };
    const { agent, out, file } = await run(["run it", "/checkpoints all", "/exit"], {}, shellCall("echo changed > a.txt"), prepare);
    const results = JSON.stringify(agent.context.history.filter((m) => m.role === "tool"));
    expect(results).toContain("more than 2000 files, over the scan's limit: what this command changes is not journaled, and a revert will not restore it");
    expect(await readFile(file, "utf8")).toBe("changed\n");
    expect(out).toMatch(/checkpoint 1 · /);
    expect(out).not.toContain("changed: a.txt");
  });
});
