/**
 * Which saved session an interactive `kosong` opens, on an emulated terminal (in process) against the fake provider server: `--session <id>` opens that
 * session (not the folder's newest) or starts one with that id, and a
 * session quit before its first prompt is not kept (no empty sessions in
 * the picker).
 */
import { mkdir, readdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { say, usage } from "../e2e/fake-model.js";
import { cleanEnv, runKosong } from "../e2e/kosong-binary.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite({ binary: true });

async function project() {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };
  const start = (args: string[]) => {
    const terminal = KosongTerminal.start(["--model", "test-model", ...args], { cwd, env: cleanEnv(home, env) });
    terminals.push(terminal);
    return terminal;
  };
  const sessionIds = async () => (await readdir(path.join(home, ".kosong", "sessions")).catch(() => [] as string[])).sort();
  return { home, cwd, env, start, sessionIds };
}

describe("kosong --session on an emulated terminal (in process)", () => {
  it("opens the named session, not the folder's newest one", async () => {
    const { home, cwd, env, start } = await project();
    server.enqueue({ message: say("Older answer."), usage }, { message: say("Newer answer."), usage });
    expect((await runKosong(["-p", "the older task", "--session", "older-one"], { cwd, home, env })).code).toBe(0);
    expect((await runKosong(["-p", "the newer task"], { cwd, home, env })).code).toBe(0);

    const terminal = start(["--session", "older-one"]);
    const screen = await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
    expect(screen).toContain("Resumed older-one: 2 messages.");
    expect(screen).toContain("the older task");
    expect(screen).not.toContain("the newer task");
    terminal.keys("C-d");
    await terminal.waitFor(/Session saved: older-one[\s\S]*\[exit 0\]/);
  }, 60_000);

  it("starts a session with the id in a folder without sessions", async () => {
    const { start, sessionIds } = await project();
    const terminal = start(["--session", "brand-new"]);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
    server.enqueue({ message: say("First answer."), usage });
    terminal.line("hello");
    await terminal.waitFor(/First answer\.[\s\S]*›\s*$/, { from: "› hello" });
    terminal.keys("C-d");
    const screen = await terminal.waitFor(/\[exit \d+\]/);
    expect(screen).not.toContain("No session to continue");
    expect(screen).toContain("Session saved: brand-new");
    expect(await sessionIds()).toEqual(["brand-new"]);
  }, 60_000);

  it("keeps no session that was quit before its first prompt", async () => {
    const { start, sessionIds } = await project();
    const terminal = start([]);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
    terminal.keys("C-d");
    const screen = await terminal.waitFor(/\[exit 0\]/);
    expect(screen).toContain("No prompt given: no session saved.");
    expect(await sessionIds()).toEqual([]);
  }, 60_000);
});
