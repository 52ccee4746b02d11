/**
 * The `Agent` tool through the built binary (`kosong -p`) against the fake
 * OpenAI-compatible server: a built-in kind and a custom agent file (Claude
 * Code's), a parallel pair, a background child whose answer comes back as
 * the next turn's input, `resume` in a later run, the child's events nested
 * in `stream-json`, and a SIGKILL while a child runs (both conversations
 * valid, the next run saying what was cut).
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Context, parseEvent, type SoulEvent } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { runKosong } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";
import { callTool, say, usage } from "./fake-model.js";

const tempDir = useTempDirs();
const { server } = await kosongSuite();

async function setup() {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  await writeFile(path.join(cwd, "app.toml"), "port = 8080\n");
  const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };
  const run = (args: string[], extra: Parameters<typeof runKosong>[1] extends infer O ? Partial<O> : never = {}) => runKosong(["--model", "test-model", ...args], { cwd, home, env, ...extra });
  return { home, cwd, run };
}

type Sent = { role: string; content?: unknown; tool_call_id?: string };
const messages = (n: number) => server.requests[n]!.body!.messages as Sent[];
const systemPrompt = (n: number) => String(messages(n)[0]!.content);
const toolNames = (n: number) => ((server.requests[n]!.body!.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name).sort();
const text = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));

/** The session's children: their folders under <home>/.kosong/sessions/<id>/agents. */
async function childFolders(home: string): Promise<string[]> {
  const sessions = path.join(home, ".kosong", "sessions");
  const out: string[] = [];
  for (const id of await readdir(sessions)) {
    const agents = path.join(sessions, id, "agents");
    for (const child of await readdir(agents).catch(() => [])) out.push(path.join(agents, child));
  }
  return out;
}

describe("the Agent tool in the built binary", { timeout: 90_000 }, () => {
  it("runs a built-in explore child on its own conversation, read-only, its answer the call's result; stream-json nests its events under the call", async () => {
    const { home, run } = await setup();
    server.enqueue(
      { message: callTool("call_a", "Agent", { description: "find the port", prompt: "Which port does app.toml set?", subagent_type: "explore" }), usage },
      { message: say("port 8080, in app.toml line 1"), usage },
      { message: say("The app listens on 8080."), usage },
    );
    const result = await run(["-p", "what port?", "--output-format", "stream-json"]);
    expect(result.code, result.stderr).toBe(0);
    // The child's request: its own system prompt and prompt, the read-only tools, nothing of the parent's conversation.
    expect(systemPrompt(1)).toContain("You only read");
    expect(toolNames(1)).toEqual(["Glob", "Grep", "ListDir", "ReadFile", "ReadMediaFile"]);
    expect(messages(1).slice(1)).toEqual([{ role: "user", content: "Which port does app.toml set?" }]);
    expect(toolNames(0)).toContain("Agent");
    // The parent's model reads the child's answer as the call's result.
    const answer = messages(2).find((m) => m.role === "tool" && m.tool_call_id === "call_a");
    expect(text(answer?.content)).toContain("port 8080, in app.toml line 1");
    const events = result.stdout.trim().split("\n").map((line) => parseEvent(line));
    const nested = events.flatMap((e) => (e.type === "SubagentEvent" ? [e.payload] : []));
    expect(nested.length).toBeGreaterThan(3);
    expect(new Set(nested.map((p) => p.parent_tool_call_id))).toEqual(new Set(["call_a"]));
    expect(nested[0]!.subagent_type).toBe("explore");
    expect(nested.map((p) => p.event.type)).toContain("TextPart");
    expect(nested.at(-1)!.event).toMatchObject({ type: "TurnEnd", payload: { stop_reason: "no_tool_calls" } });
    // The usage of the parent's turn counts the child's call.
    const end = events.findLast((e): e is Extract<SoulEvent, { type: "TurnEnd" }> => e.type === "TurnEnd")!;
    expect(end.payload.usage.input_other).toBe(3 * usage.input_other);
    // The child's conversation and record live in the session folder.
    const [folder] = await childFolders(home);
    const record = JSON.parse(await readFile(path.join(folder!, "agent.json"), "utf8"));
    expect(record).toMatchObject({ subagent_type: "explore", status: "finished", parent_tool_call_id: "call_a", model: "test-model" });
    const child = new Context(path.join(folder!, "context.jsonl"));
    await child.restore();
    expect(child.history.map((m) => m.role)).toEqual(["user", "assistant"]);
    await child.close();
  });

  it("runs a custom agent from Claude Code's .claude/agents (its prompt, its tools; a project file's model is not used)", async () => {
    const { cwd, run } = await setup();
    await mkdir(path.join(cwd, ".claude", "agents"), { recursive: true });
    await writeFile(
      path.join(cwd, ".claude", "agents", "reviewer.md"),
      "---\nname: reviewer\ndescription: Reviews code for bugs\ntools: Read, Grep, Bash\nmodel: opus-expensive\n---\nYou review code. Name each bug with its file and line.\n",
    );
    server.enqueue(
      { message: callTool("call_r", "Agent", { description: "review", prompt: "Review app.toml", subagent_type: "reviewer" }), usage },
      { message: say("no bugs"), usage },
      { message: say("Reviewed: no bugs."), usage },
    );
    const result = await run(["-p", "review it", "--yolo"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Reviewed: no bugs.");
    expect(String(server.requests[0]!.body!.tools && JSON.stringify(server.requests[0]!.body!.tools))).toContain("reviewer: Reviews code for bugs");
    expect(systemPrompt(1)).toBe("You review code. Name each bug with its file and line.");
    expect(toolNames(1)).toEqual(["Grep", "ReadFile", "Shell"]);
    expect(server.requests[1]!.body!.model).toBe("test-model");
  });

  it("runs two calls of one step in parallel, each child on its own conversation (explore on the compact model)", async () => {
    const { home, run } = await setup();
    const read = (id: string) => callTool(id, "ReadFile", { path: "app.toml" });
    server.enqueue(
      {
        message: {
          role: "assistant",
          content: [],
          tool_calls: [
            { type: "function", id: "call_1", function: { name: "Agent", arguments: JSON.stringify({ description: "one", prompt: "first task", subagent_type: "explore" }) } },
            { type: "function", id: "call_2", function: { name: "Agent", arguments: JSON.stringify({ description: "two", prompt: "second task", subagent_type: "explore" }) } },
          ],
        },
        usage,
      },
      // The first child's answer is slow: a second child running meanwhile sends its request before the first child's second one.
      { message: read("r1"), usage, delayMs: 400 },
      { message: read("r2"), usage },
      { message: say("child done"), usage },
      { message: say("child done"), usage },
      { message: say("Both done."), usage },
    );
    const result = await run(["-p", "two things", "--compact-model", "fast-model"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Both done.");
    // explore runs on the compact model when one is set.
    expect(server.requests.map((r) => r.body!.model)).toEqual(["test-model", "fast-model", "fast-model", "fast-model", "fast-model", "test-model"]);
    const firstPrompts = [1, 2].map((n) => text(messages(n).at(-1)!.content)).sort();
    expect(firstPrompts).toEqual(["first task", "second task"]);
    expect((await childFolders(home)).length).toBe(2);
    const last = messages(5);
    expect(last.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(["call_1", "call_2"]);
  });

  it("runs a child in the background; its answer is the next turn's input; a later run resumes the child's conversation", async () => {
    const { home, run } = await setup();
    server.enqueue(
      { message: callTool("call_b", "Agent", { description: "count files", prompt: "How many files?", subagent_type: "explore", run_in_background: true }), usage },
      // The parent's next step and the child's answer race for these two: both say the same.
      { message: say("noted"), usage },
      { message: say("noted"), usage },
      { message: say("The background agent is done."), usage },
    );
    const first = await run(["-p", "count in the background"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("The background agent is done.");
    const started = messages(server.requests.length - 1).find((m) => m.role === "tool" && m.tool_call_id === "call_b");
    expect(text(started?.content)).toContain("started in the background");
    const notice = messages(3).at(-1)!;
    expect(notice.role).toBe("user");
    expect(text(notice.content)).toMatch(/Background agent agent-[0-9a-f]{8} \(explore, "count files"\) finished/);
    const id = /agent-[0-9a-f]{8}/.exec(text(notice.content))![0];

    server.reset();
    server.enqueue(
      { message: callTool("call_c", "Agent", { description: "more", prompt: "And hidden ones?", resume: id }), usage },
      { message: say("also none"), usage },
      { message: say("Still none."), usage },
    );
    const second = await run(["-p", "ask it again", "--continue"]);
    expect(second.code, second.stderr).toBe(0);
    // The resumed child sends its earlier conversation, then the new prompt.
    expect(messages(1).slice(1).map((m) => [m.role, text(m.content)])).toEqual([
      ["user", "How many files?"],
      ["assistant", "noted"],
      ["user", "And hidden ones?"],
    ]);
    const folders = await childFolders(home);
    expect(folders.length).toBe(1);
    // One conversation, its system prompt stored once.
    const lines = (await readFile(path.join(folders[0]!, "context.jsonl"), "utf8")).trim().split("\n");
    expect(lines.filter((line) => line.includes('"_system_prompt"'))).toHaveLength(1);
  });

  it("refuses an unknown kind and a resume id that is not an agent's, as error results", async () => {
    const { run } = await setup();
    server.enqueue(
      {
        message: {
          role: "assistant",
          content: [],
          tool_calls: [
            { type: "function", id: "call_x", function: { name: "Agent", arguments: JSON.stringify({ description: "x", prompt: "x", subagent_type: "wizard" }) } },
            { type: "function", id: "call_y", function: { name: "Agent", arguments: JSON.stringify({ description: "y", prompt: "y", resume: "../../etc/passwd" }) } },
          ],
        },
        usage,
      },
      { message: say("ok"), usage },
    );
    const result = await run(["-p", "go"]);
    expect(result.code, result.stderr).toBe(0);
    const results = messages(1).filter((m) => m.role === "tool").map((m) => text(m.content));
    expect(results[0]).toContain('Unknown subagent_type "wizard"; one of: coder, explore, plan');
    expect(results[1]).toContain("No agent");
  });

  it("SIGKILL while a child runs leaves both conversations valid, and the next run says what was cut", async () => {
    const { home, run } = await setup();
    server.enqueue(
      { message: callTool("call_k", "Agent", { description: "slow", prompt: "take your time", subagent_type: "explore" }), usage },
      { message: say("never sent"), usage, delayMs: 60_000 },
    );
    const killed = await run(["-p", "start a slow agent"], {
      onSpawn: (child) => {
        const poll = setInterval(() => {
          if (server.requests.length >= 2) {
            clearInterval(poll);
            child.kill("SIGKILL");
          }
        }, 20);
      },
    });
    expect(killed.signal).toBe("SIGKILL");
    const [folder] = await childFolders(home);
    expect(JSON.parse(await readFile(path.join(folder!, "agent.json"), "utf8")).status).toBe("running");

    server.reset();
    server.enqueue({ message: say("resumed"), usage });
    const next = await run(["-p", "go on", "--continue"]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toMatch(/agent agent-[0-9a-f]{8} \(explore\) was cut while it ran: its conversation keeps 1 messages/);
    // The parent's step was cut before it was written (a step is one write): its conversation is the prompt, then the new one.
    expect(messages(0).slice(1).map((m) => [m.role, text(m.content)])).toEqual([
      ["user", "start a slow agent"],
      ["user", "go on"],
    ]);
    expect(JSON.parse(await readFile(path.join(folder!, "agent.json"), "utf8")).status).toBe("interrupted");
    const child = new Context(path.join(folder!, "context.jsonl"));
    const report = await child.restore();
    expect(report.skipped).toEqual([]);
    expect(child.history.map((m) => m.role)).toEqual(["user"]);
    await child.close();
  });
});
