/**
 * AskUserQuestion through the built binary: a clear error result for the
 * model in print mode, where nobody can answer; over --wire, kimi-cli's
 * QuestionRequest answered by Moonshot's own client SDK. The terminal's
 * picker: test/interactive/ask-user-question.test.ts.
 */
import { mkdir } from "node:fs/promises";
import { createSession, type StreamEvent } from "@moonshot-ai/kimi-agent-sdk";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { callTool, say, sentToolResult, usage } from "./fake-model.js";
import { runKosong } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";
import { wireExecutable } from "./wire-wrapper.js";

const tempDir = useTempDirs();
const { server } = await kosongSuite();

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

describe("AskUserQuestion (the built binary)", { timeout: 90_000 }, () => {
  it("fails clearly in print mode, and the model goes on", async () => {
    const { home, cwd, env } = await workspace();
    server.enqueue({ message: callTool("q1", "AskUserQuestion", questions), usage }, { message: say("I chose Python."), usage });
    const result = await runKosong(["-p", "start a project"], { cwd, home, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("I chose Python.");
    expect(toolResult(1)).toContain("AskUserQuestion is not available in print mode (kosong -p): no user can answer here.");
  });

  it("asks a --wire client with kimi-cli's QuestionRequest (the SDK declares supports_question) and the model reads its answers", async () => {
    const { home, cwd } = await workspace();
    const executable = await wireExecutable(home, `${server.url}/v1`);
    const session = createSession({ workDir: cwd, executable, model: "test-model", thinking: false });
    try {
      server.enqueue({ message: callTool("q1", "AskUserQuestion", questions), usage }, { message: say("Rust and SQLite."), usage });
      const turn = session.prompt("start a project");
      const asked: { id?: string; tool_call_id?: string; questions?: unknown }[] = [];
      for await (const streamed of turn as AsyncIterable<StreamEvent>) {
        const event = streamed as unknown as { type: string; payload: { id?: string; tool_call_id?: string; questions?: unknown } };
        if (event.type !== "QuestionRequest") continue;
        asked.push(event.payload);
        await turn.respondQuestion(event.payload.id!, event.payload.id!, { "Which language?": "Rust", "Which database?": "SQLite" });
      }
      expect(await turn.result).toMatchObject({ status: "finished" });
      expect(asked).toEqual([{ id: expect.any(String), tool_call_id: "q1", questions: questions.questions }]);
      expect(toolResult(1)).toContain("Which language?\\n→ Rust");
      expect(toolResult(1)).toContain("Which database?\\n→ SQLite");
    } finally {
      await session.close();
    }
  });
});
