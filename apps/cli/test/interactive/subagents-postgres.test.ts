/**
 * Child agents with `--store` (PostgreSQL, the run's test server) in the
 * interactive mode (in process): `/agents` opens a stored child's
 * transcript, `/revert` past its call detaches it (a rotation in the store)
 * and `/agents restore` brings it back (the rest: ../e2e/subagents-postgres.e2e.test.ts).
 */
import { mkdir, readdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { callTool, say, usage } from "../e2e/fake-model.js";
import { cleanEnv } from "../e2e/kosong-binary.js";
import { storedConversation, useTestStore } from "../e2e/test-store.js";
import { interactiveSuite } from "./interactive-suite.js";

const tempDir = useTempDirs();
const pg = useTestStore();
const { server, start } = await interactiveSuite();

describe("child agents with --store in the terminal", { timeout: 120_000 }, () => {
  it("/agents opens a stored child's transcript, /revert past its call detaches it as a rotation in the store, /agents restore brings it back", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, KOSONG_STORE_URL: pg.url };
    const terminal = start(["--model", "test-model", "--yolo"], { cwd, env: cleanEnv(home, env), width: 110, height: 50 });
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
    server.enqueue(
      { message: callTool("call_a", "Agent", { description: "rewrite notes", prompt: "Write notes.txt", subagent_type: "coder" }), usage },
      { message: callTool("w1", "WriteFile", { path: "notes.txt", content: "by the child\n" }), usage },
      { message: say("notes.txt written"), usage },
      { message: say("Done."), usage },
    );
    terminal.line("write the notes with a helper");
    await terminal.waitFor(/Done\.[\s\S]*›\s*$/, { from: "› write the notes" });
    // The one session folder, and the one agent folder in it.
    const sessions = path.join(home, ".kosong", "sessions");
    const [session] = await readdir(sessions);
    const [agent] = await readdir(path.join(sessions, session!, "agents"));

    terminal.line(`/agents ${agent}`);
    const transcript = await terminal.waitFor(/notes\.txt written\n›\s*$/, { from: `› /agents ${agent}` });
    expect(transcript).toContain("Write notes.txt");

    terminal.line("/revert 0");
    await terminal.waitFor(/Revert the conversation and these files\? \[y\/N\]/, { from: "› /revert 0" });
    terminal.line("y");
    const reverted = await terminal.waitFor(/Reverted to checkpoint 0[\s\S]*›\s*$/, { from: "› /revert 0" });
    expect(reverted).toContain(`detached agent ${agent} (coder)`);
    const child = (await pg.store.listSessions()).find((s) => s.id === `${session}/${agent}`);
    expect(child?.rotations).toBe(1);

    terminal.line(`/agents restore ${agent}`);
    await terminal.waitFor(/conversation is back \(4 messages\)/, { from: `› /agents restore ${agent}` });
    terminal.line("/exit");
    await terminal.waitFor(/Session saved/);
    expect(await storedConversation(pg.store, `${session}/${agent}`)).toContain("assistant: notes.txt written");
  });
});
