/**
 * AskUserQuestion's configured answers through the built binary: in print
 * mode and stream-json, where nobody can answer live, `--answer` (by
 * question text or header), `--default-answer` and config `[questions]`
 * answer it; the user sees which on stderr; a question nothing answers
 * gets no answer, and a call none of whose questions is answered fails
 * clearly as before.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { callTool, say, usage } from "./fake-model.js";
import { runKosong } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";

const tempDir = useTempDirs();
const { server } = await kosongSuite();

const questions = {
  questions: [
    { question: "Which language?", header: "Lang", options: [{ label: "Python" }, { label: "Rust" }] },
    { question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] },
  ],
};
type Sent = { role: string; content?: unknown; tool_call_id?: string };
const toolResult = (n: number): string => {
  const content = (server.requests[n]!.body!.messages as Sent[]).find((m) => m.tool_call_id === "q1")?.content ?? "";
  return typeof content === "string" ? content : JSON.stringify(content);
};

async function workspace(config = "") {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  await mkdir(path.join(home, ".kosong"));
  await writeFile(path.join(home, ".kosong", "config.toml"), config);
  const run = (args: string[]) => {
    server.enqueue({ message: callTool("q1", "AskUserQuestion", questions), usage }, { message: say("Going on."), usage });
    return runKosong(["-p", "start a project", ...args], { cwd, home, env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` } });
  };
  return { run };
}

describe("AskUserQuestion's configured answers (the built binary)", { timeout: 60_000 }, () => {
  it("--answer by header and --default-answer first answer in print mode; stderr says so", async () => {
    const { run } = await workspace();
    const result = await run(["--answer", "lang=Rust", "--default-answer", "first"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Going on.");
    expect(toolResult(1)).toBe("Which language?\n→ Rust\n\nWhich database?\n→ Postgres");
    expect(result.stderr).toContain("kosong: AskUserQuestion answered from the configuration: Which language? → Rust\n");
    expect(result.stderr).toContain("kosong: AskUserQuestion answered from the configuration: Which database? → Postgres\n");
  });

  it("config [questions] answers by question text in stream-json; a question it does not name gets no answer", async () => {
    const { run } = await workspace('[questions.answers]\n"which  DATABASE?" = "a flat file"\n');
    const result = await run(["--output-format", "stream-json"]);
    expect(result.code, result.stderr).toBe(0);
    expect(toolResult(1)).toBe("Which language?\n→ (no answer)\n\nWhich database?\n→ a flat file");
    const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line) as { type: string; payload: { return_value?: { is_error?: boolean; output?: unknown } } });
    const toolResultEvent = events.find((e) => e.type === "ToolResult")!;
    expect(toolResultEvent.payload.return_value).toMatchObject({ is_error: false, output: expect.stringContaining("→ a flat file") });
  });

  it("a call none of whose questions is answered fails clearly, naming the settings; a malformed --answer is a usage error", async () => {
    const { run } = await workspace('[questions.answers]\n"Which editor?" = "vim"\n');
    const result = await run([]);
    expect(result.code, result.stderr).toBe(0);
    expect(toolResult(1)).toContain("AskUserQuestion is not available in print mode (kosong -p): no user can answer here.");
    expect(toolResult(1)).toContain("No answer is configured for these questions (--answer, --default-answer, [questions] in config.toml).");
    const bad = await run(["--answer", "Rust"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--answer takes QUESTION=ANSWER (the question\'s text or header, then the answer), got "Rust"');
  });
});
