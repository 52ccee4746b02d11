/**
 * The todo list in the interactive mode on an emulated terminal (in process): the model's
 * SetTodoList calls show the list after the turn and in /todo; /revert
 * brings back the list as it was at that checkpoint, and a compaction that
 * summarises the calls away keeps the list.
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { callTool, say, usage } from "../e2e/fake-model.js";
import { cleanEnv } from "../e2e/kosong-binary.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite();

const setList = (id: string, todos: [string, string][]) => callTool(id, "SetTodoList", { todos: todos.map(([title, status]) => ({ title, status })) });

describe("the todo list (in process)", { timeout: 90_000 }, () => {
  it("shows the list, brings it back as it was after /revert, and keeps it through /compact", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
    const terminal = KosongTerminal.start(["--model", "test-model"], { cwd, env, height: 100 });
    terminals.push(terminal);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/);

    server.enqueue({ message: setList("t1", [["write tests", "pending"], ["fix the bug", "pending"]]), usage }, { message: say("Planned."), usage });
    terminal.line("plan the work");
    let screen = await terminal.waitFor(/Planned\.[\s\S]*Todo \(0\/2 done\):\n\s+○ write tests\n\s+○ fix the bug/, { from: "› plan the work" });

    server.enqueue({ message: setList("t2", [["write tests", "done"], ["fix the bug", "in_progress"]]), usage }, { message: say("Working."), usage });
    terminal.line("go on");
    await terminal.waitFor(/Working\.[\s\S]*Todo \(1\/2 done\):\n\s+✓ write tests\n\s+▸ fix the bug/, { from: "› go on" });

    terminal.line("/checkpoints");
    screen = await terminal.waitFor(/checkpoint \d+ [^\n]*drops "go on" onward/, { from: "› /checkpoints" });
    const id = /checkpoint (\d+) [^\n]*drops "go on" onward/.exec(screen)![1]!;
    terminal.line(`/revert ${id}`);
    await terminal.waitFor(/Reverted to checkpoint/, { from: `› /revert ${id}` });
    terminal.line("/todo");
    await terminal.waitFor(/Todo \(0\/2 done\):\n\s+○ write tests\n\s+○ fix the bug/, { from: "› /todo" });

    // Two more exchanges, so the LLM summary replaces the SetTodoList call: the call is gone from the conversation, the list is not.
    for (const [prompt, answer] of [["first chat", "A."], ["second chat", "B."]]) {
      server.enqueue({ message: say(answer!), usage });
      terminal.line(prompt!);
      await terminal.waitFor(new RegExp(`${answer!.replace(".", "\\.")}[\\s\\S]*test-model ·`), { from: `› ${prompt}` });
    }
    server.enqueue({ message: say("Summary: planned two items."), usage });
    terminal.line("/compact");
    await terminal.waitFor(/kept \d+, dropped \d+/, { from: "› /compact" });
    // The list the first /todo printed is still on the screen: wait for one printed after this /todo, after the compaction.
    terminal.line("/todo");
    await terminal.waitFor(/› \/todo\n\s*Todo \(0\/2 done\):\n\s+○ write tests\n\s+○ fix the bug/, { from: "› /compact" });
    server.enqueue({ message: say("Next."), usage });
    terminal.line("what is next");
    await terminal.waitFor(/Next\./, { from: "› what is next" });
    const sent = JSON.stringify(server.requests.at(-1)!.body!.messages);
    expect(sent).not.toContain("SetTodoList");
    expect(sent).toContain('<todo-list>[{\\"title\\":\\"write tests\\",\\"status\\":\\"pending\\"}');
  });
});
