/**
 * Child agents with `--store` (PostgreSQL, the run's test server), through
 * the built binary against the fake provider server: a child's
 * conversation is kept in the same store as its parent's, as session
 * `<parent session>/<agent id>` (its turn checkpoint labelled with the
 * parent's call), not in a file; a later run resumes it from there (`/agents`,
 * `/revert` and `/agents restore` in the terminal:
 * ../interactive/subagents-postgres.test.ts); `sessions prune` removes
 * the child's conversation with its parent's; a SIGKILL mid-child leaves both
 * conversations valid there and the next run says what was cut.
 */
import { mkdir, readdir, utimes } from "node:fs/promises";
import path from "node:path";
import { extractText } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { callTool, say, usage } from "./fake-model.js";
import { runKosong } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";
import { useTestStore } from "./test-store.js";

const tempDir = useTempDirs();
const pg = useTestStore();
const { server } = await kosongSuite();

async function setup() {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, KOSONG_STORE_URL: pg.url };
  const sessions = path.join(home, ".kosong", "sessions");
  /** The session's id and its child's: the one session folder, and the one agent folder in it. */
  const ids = async () => {
    const [session] = await readdir(sessions);
    const [agent] = await readdir(path.join(sessions, session!, "agents"));
    return { session: session!, agent: agent!, folder: path.join(sessions, session!, "agents", agent!) };
  };
  return { home, cwd, env, sessions, ids };
}

/** The store's conversation of session `id`: its messages (role: text) and checkpoint labels. */
async function stored(id: string): Promise<{ messages: string[]; labels: (string | null)[] }> {
  const log = await pg.store.openLog(id);
  try {
    const state = await log.read();
    return { messages: state.messages.map((m) => `${m.role}: ${extractText(m)}`), labels: state.checkpoints.map((c) => c.label ?? null) };
  } finally {
    await log.close();
  }
}

const storedIds = async () => (await pg.store.listSessions()).map((s) => s.id);

describe("child agents with --store (PostgreSQL)", { timeout: 120_000 }, () => {
  it("keeps a child's conversation in the parent's store, linked to the parent's session and call; resumes it from there; prune removes it with the parent", async () => {
    const { home, cwd, env, sessions, ids } = await setup();
    server.enqueue(
      { message: callTool("call_a", "Agent", { description: "find the port", prompt: "Which port?", subagent_type: "explore" }), usage },
      { message: say("port 8080"), usage },
      { message: say("It is 8080."), usage },
    );
    const first = await runKosong(["--model", "test-model", "-p", "what port?"], { cwd, home, env });
    expect(first.code, first.stderr).toBe(0);
    const { session, agent, folder } = await ids();
    // The record stays in the session folder (as the session's own metadata does), the conversation is in the store.
    expect(await readdir(folder)).toEqual(["agent.json"]);
    const child = await stored(`${session}/${agent}`);
    expect(child.messages).toEqual(["user: Which port?", "assistant: port 8080"]);
    expect(child.labels).toContain(`${session}/call_a`);

    server.reset();
    server.enqueue(
      { message: callTool("call_b", "Agent", { description: "again", prompt: "And the host?", resume: agent }), usage },
      { message: say("localhost"), usage },
      { message: say("localhost:8080"), usage },
    );
    const second = await runKosong(["--model", "test-model", "-p", "and the host?", "--continue"], { cwd, home, env });
    expect(second.code, second.stderr).toBe(0);
    // The resumed child sent its conversation from the store, then the new prompt.
    const sent = (server.requests[1]!.body!.messages as { role: string; content: unknown }[]).slice(1).map((m) => `${m.role}: ${String(m.content)}`);
    expect(sent).toEqual(["user: Which port?", "assistant: port 8080", "user: And the host?"]);
    expect((await stored(`${session}/${agent}`)).messages.at(-1)).toBe("assistant: localhost");

    const old = new Date(Date.now() - 60 * 86_400_000);
    for (const name of ["context.jsonl", "session.json"]) await utimes(path.join(sessions, session, name), old, old).catch(() => undefined);
    const pruned = await runKosong(["sessions", "prune", "--older-than", "30d"], { cwd, home, env });
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(await readdir(sessions)).toEqual([]);
    const left = await storedIds();
    expect(left).not.toContain(session);
    expect(left).not.toContain(`${session}/${agent}`);
  });

  it("SIGKILL while a child runs leaves both conversations valid in the store, and the next run says what was cut", async () => {
    const { home, cwd, env, ids } = await setup();
    server.enqueue(
      { message: callTool("call_k", "Agent", { description: "slow", prompt: "take your time", subagent_type: "explore" }), usage },
      { message: say("never sent"), usage, delayMs: 60_000 },
    );
    const killed = await runKosong(["--model", "test-model", "-p", "start a slow agent"], {
      cwd,
      home,
      env,
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
    const { session, agent } = await ids();
    server.reset();
    server.enqueue({ message: say("resumed"), usage });
    const next = await runKosong(["--model", "test-model", "-p", "go on", "--continue"], { cwd, home, env });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(`agent ${agent} (explore) was cut while it ran: its conversation keeps 1 messages`);
    expect((await stored(`${session}/${agent}`)).messages).toEqual(["user: take your time"]);
  });
});
