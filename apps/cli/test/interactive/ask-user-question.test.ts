/**
 * AskUserQuestion in the interactive mode (in process, on an emulated
 * terminal): a picker (an option by number, or the user's own words) whose
 * answers reach the model. Print mode and --wire: ask-user-question.e2e.test.ts.
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { callTool, say, sentToolResult, usage } from "../e2e/fake-model.js";
import { cleanEnv } from "../e2e/kosong-binary.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite();

const questions = {
  questions: [
    { question: "Which language?", header: "Lang", options: [{ label: "Python", description: "large ecosystem" }, { label: "Rust", description: "fast\u001b[2J" }] },
    { question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] },
  ],
};
const toolResult = (n: number): string => sentToolResult(server, n, "q1");

async function workspace() {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  return { home, cwd, env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` } };
}

describe("AskUserQuestion (in process)", { timeout: 90_000 }, () => {
  it("shows a picker: an option by number, or the user's own answer, reach the model", async () => {
    const { cwd, env } = await workspace();
    const terminal = KosongTerminal.start(["--model", "test-model"], { cwd, env: cleanEnv(path.dirname(cwd), env), height: 50 });
    terminals.push(terminal);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/);
    server.enqueue({ message: callTool("q1", "AskUserQuestion", questions), usage }, { message: say("Rust with my own store it is."), usage });
    terminal.line("start a project");
    let screen = await terminal.waitFor(/Which language\?[\s\S]*answer› $/m, { from: "› start a project" });
    expect(screen).toMatch(/\[Lang\] Which language\?\n\s+1\. Python — large ecosystem\n\s+2\. Rust — fast␛\[2J/);
    terminal.line("2");
    screen = await terminal.waitFor(/Which database\?[\s\S]*answer› $/m, { from: "› start a project" });
    terminal.line("a flat file");
    await terminal.waitFor(/Rust with my own store it is\./, { from: "› start a project" });
    expect(toolResult(1)).toContain("Which language?\\n→ Rust");
    expect(toolResult(1)).toContain("Which database?\\n→ a flat file");
  });

});
