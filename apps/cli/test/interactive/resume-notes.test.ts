/**
 * What the interactive `kosong` says about a conversation, on an emulated terminal (in process) against the fake provider server: the resume notice
 * counts messages in the right number and shows files a compaction
 * recovered as such (not as the user's prompts), each shown on one row of
 * the terminal (a long or wide one cut to its width), and a `/compact` whose
 * output would be larger than what it replaced keeps the history and says so.
 */
import { appendFile, mkdir } from "node:fs/promises";
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
  const start = async (args: string[]) => {
    const terminal = KosongTerminal.start(["--model", "test-model", ...args], { cwd, env: cleanEnv(home, env) });
    terminals.push(terminal);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
    return terminal;
  };
  const contextFile = (id: string) => path.join(home, ".kosong", "sessions", id, "context.jsonl");
  return { home, cwd, env, start, contextFile };
}

describe("resume notices and compaction reports on an emulated terminal (in process)", () => {
  it("says 1 message, not 1 messages", async () => {
    const { home, cwd, env, start } = await project();
    // The model refuses the request: only the prompt is kept.
    server.enqueue({ status: 400, body: { error: { message: "bad request", type: "invalid_request_error" } } });
    expect((await runKosong(["-p", "the only prompt", "--session", "lonely"], { cwd, home, env })).code).toBe(1);
    const terminal = await start(["--session", "lonely"]);
    expect(terminal.screen()).toMatch(/Resumed lonely: 1 message\. The last of them:\n› the only prompt\n/);
  }, 60_000);

  it("shows files a compaction recovered as recovered files, not as prompts", async () => {
    const { home, cwd, env, start, contextFile } = await project();
    server.enqueue({ message: say("Fixed it."), usage });
    expect((await runKosong(["-p", "fix the parser", "--session", "fixed"], { cwd, home, env })).code).toBe(0);
    // A compaction's recovered file, as @kosong/soul's compaction writes it into the conversation.
    const recovered = "**Recovered file: src/parser.ts** (last written)\n\n```\n1\texport const parse = 1;\n```\n<system>Recovered automatically after a compaction.</system>";
    await appendFile(contextFile("fixed"), `${JSON.stringify({ role: "user", content: recovered })}\n${JSON.stringify({ role: "assistant", content: "Carrying on." })}\n`);
    const terminal = await start(["--session", "fixed"]);
    const screen = terminal.screen();
    expect(screen).toMatch(/› fix the parser\n\s+Fixed it\.\n\s+\(src\/parser\.ts recovered by a compaction\)\n\s+Carrying on\.\n/);
    expect(screen).not.toContain("› **Recovered file");
  }, 60_000);

  it("shows each resumed prompt and answer on one row of the terminal, a long or wide one cut to its width", async () => {
    const { home, cwd, env } = await project();
    const prompt = `请解释这个项目的结构 ${"和它的模块 ".repeat(12)}`;
    server.enqueue({ message: say(`The project has ${"many modules and folders, ".repeat(8)}the end.`), usage });
    expect((await runKosong(["-p", prompt, "--session", "long"], { cwd, home, env })).code).toBe(0);
    const terminal = KosongTerminal.start(["--model", "test-model", "--session", "long"], { cwd, env: cleanEnv(home, env), width: 80, height: 30 });
    terminals.push(terminal);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
    const rows = terminal.visible().split("\n");
    const shown = rows.slice(rows.findIndex((row) => row.startsWith("Resumed long")) + 1, rows.findIndex((row) => row.startsWith("/help for commands")));
    expect(shown, rows.join("\n")).toEqual([expect.stringMatching(/^› 请解释这个项目的结构 和它的模块 .*…$/), expect.stringMatching(/^ {2}The project has many modules.*…$/)]);
  }, 60_000);

  it("keeps the history and says why when a /compact summary is longer than the conversation", async () => {
    const { start } = await project();
    const terminal = await start([]);
    for (const [prompt, answer] of [["hi", "Hi."], ["how are you", "Fine."]] as const) {
      server.enqueue({ message: say(answer), usage });
      terminal.line(prompt);
      await terminal.waitFor(new RegExp(`${answer}[\\s\\S]*›\\s*$`), { from: `› ${prompt}` });
    }
    server.enqueue({ message: say(`Summary: ${"the user greeted the assistant and the assistant greeted back. ".repeat(20)}`), usage });
    terminal.line("/compact");
    const screen = await terminal.waitFor(/nothing compacted \([\d.k]+ tokens\)[\s\S]*would have grown the context[\s\S]*›\s*$/, { from: "› /compact" });
    expect(screen).not.toMatch(/⇣ compacted:/);
    // The conversation goes on with its messages as they were (the first answer was not summarised away).
    server.enqueue({ message: say("Still here."), usage });
    terminal.line("and now?");
    await terminal.waitFor(/Still here\./, { from: "› and now?" });
    const sent = JSON.stringify(server.requests.at(-1)!.body);
    expect(sent).toContain('"Hi."');
    expect(sent).not.toContain("the user greeted the assistant");
  }, 60_000);
});
