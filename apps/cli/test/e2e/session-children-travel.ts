/**
 * A session's children travel with it, through the built binary against
 * the fake provider server: `kosong export` (Markdown and HTML show the
 * child's steps under its Agent call and embed its conversation; JSONL keeps
 * it in `<file>.agents` beside the file), `kosong import` restores it (the
 * imported session's `resume` continues it), and `/fork` copies it (on a terminal: tmux or in process).
 * Shared by the file and the PostgreSQL (`--store`) suites: `conversation`
 * reads a child's stored conversation where the suite keeps it.
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { extractText } from "@kosong/core";
import { decodeRecordLine } from "@kosong/context/records";
import type { PostgresContextStore } from "@kosong/context-postgres";
import type { FakeProviderServer } from "@kosong/core/testing";
import { expect } from "vitest";
import { callTool, say, usage } from "./fake-model.js";
import { cleanEnv, runKosong } from "./kosong-binary.js";
import type { StartKosong } from "./kosong-suite.js";

/** Reads child `agentId` of session `sessionId` as `role: text` lines. */
export type ChildConversation = (home: string, sessionId: string, agentId: string) => Promise<string[]>;

/** A child's conversation from its `context.jsonl` in the session's folder (sessions in files). */
export const fileChildConversation: ChildConversation = async (home, sessionId, agentId) => {
  const text = await readFile(path.join(home, ".kosong", "sessions", sessionId, "agents", agentId, "context.jsonl"), "utf8");
  return text.split("\n").flatMap((line) => {
    const decoded = line.trim() ? decodeRecordLine(line) : null;
    return decoded?.ok && decoded.record.kind === "message" ? [`${decoded.record.message.role}: ${extractText(decoded.record.message)}`] : [];
  });
};

/** A child's conversation in `store` (PostgreSQL, `--store`), as session `<session id>/<agent id>`. */
export function storeChildConversation(store: PostgresContextStore): ChildConversation {
  return async (_home, sessionId, agentId) => {
    const log = await store.openLog(`${sessionId}/${agentId}`);
    try {
      return (await log.read()).messages.map((m) => `${m.role}: ${extractText(m)}`);
    } finally {
      await log.close();
    }
  };
}

const secret = "ghp_childsecret0123456789";

/** A session whose explore child read a file (the secret in its answer); returns its ids. */
async function sessionWithChild(server: FakeProviderServer, home: string, env: Record<string, string>) {
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  server.enqueue(
    { message: callTool("call_a", "Agent", { description: "find the port", prompt: "Which port does app.toml set?", subagent_type: "explore" }), usage },
    { message: callTool("r1", "ListDir", { path: "." }), usage },
    { message: say(`port 8080, found by the child (token ${secret})`), usage },
    { message: say("The app listens on 8080."), usage },
  );
  const run = await runKosong(["--model", "test-model", "-p", "what port?"], { cwd, home, env: { ...env, GITHUB_TOKEN: secret } });
  expect(run.code, run.stderr).toBe(0);
  const sessions = path.join(home, ".kosong", "sessions");
  const [session] = await readdir(sessions);
  const [agent] = await readdir(path.join(sessions, session!, "agents"));
  return { cwd, session: session!, agent: agent!, sessions };
}

/** Exports in each format, imports each back, resumes the child of the JSONL import. */
export async function exportAndImportChildren(server: FakeProviderServer, home: string, env: Record<string, string>, conversation: ChildConversation): Promise<void> {
  const { cwd, session, agent, sessions } = await sessionWithChild(server, home, env);
  const kosong = (args: string[]) => runKosong(args, { cwd, home, env: { ...env, GITHUB_TOKEN: secret } });
  const original = await conversation(home, session, agent);
  expect(original.map((line) => line.split(":")[0])).toEqual(["user", "assistant", "tool", "assistant"]);
  expect(original.at(-1)).toContain(`port 8080, found by the child (token ${secret})`);
  const redacted = original.map((line) => line.split(secret).join("[REDACTED]"));

  const md = path.join(cwd, "export.md");
  const html = path.join(cwd, "export.html");
  const jsonl = path.join(cwd, "export.jsonl");
  for (const file of [md, html, jsonl]) {
    const exported = await kosong(["export", session, "-o", file]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(await readFile(file, "utf8")).not.toContain(secret);
  }
  // Markdown and HTML show the child's steps under its Agent call (HTML: a collapsible block of their own).
  const mdText = await readFile(md, "utf8");
  expect(mdText).toMatch(new RegExp(`<summary>Tool call: Agent</summary>[\\s\\S]*<summary>Agent ${agent} \\(explore\\): its steps</summary>[\\s\\S]*Which port does app\\.toml set\\?[\\s\\S]*Tool call: ListDir[\\s\\S]*port 8080, found by the child[\\s\\S]*Result:`));
  const htmlText = await readFile(html, "utf8");
  expect(htmlText).toMatch(new RegExp(`<details class="tool"><summary>Tool call: Agent</summary><pre>[^<]*</pre><details class="agent"><summary>Agent ${agent} \\(explore\\): its steps</summary>[\\s\\S]*port 8080, found by the child[\\s\\S]*</details><div>Result:</div>`));
  // JSONL stays kimi-cli's format (no line of the child in it): the child is in the folder beside it.
  const jsonlText = await readFile(jsonl, "utf8");
  expect(jsonlText).not.toContain(`"id":"r1"`);
  expect(jsonlText).not.toContain("Which port does app.toml set?\"}");
  expect((await readFile(path.join(`${jsonl}.agents`, agent, "context.jsonl"), "utf8"))).toContain("found by the child (token [REDACTED])");
  // To stdout, a JSONL export cannot carry the child: it says so.
  const toStdout = await kosong(["export", session, "--format", "jsonl"]);
  expect(toStdout.code).toBe(0);
  expect(toStdout.stderr).toContain("are not in a JSONL export to stdout");

  for (const file of [md, html, jsonl]) {
    const imported = await kosong(["import", file]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain("with 1 agent as session");
    const id = /as session (\S+)\./.exec(imported.stdout)![1]!;
    expect(await readdir(path.join(sessions, id, "agents"))).toEqual([agent]);
    const record = JSON.parse(await readFile(path.join(sessions, id, "agents", agent, "agent.json"), "utf8"));
    expect(record).toMatchObject({ id: agent, subagent_type: "explore", parent_session: id, parent_tool_call_id: "call_a", status: "finished" });
    expect(await conversation(home, id, agent)).toEqual(redacted);
  }

  // The imported session's child is a real one: `resume` continues its conversation.
  const lastImport = (await readdir(sessions)).sort().at(-1)!;
  server.reset();
  server.enqueue(
    { message: callTool("call_b", "Agent", { description: "again", prompt: "And the host?", resume: agent }), usage },
    { message: say("localhost"), usage },
    { message: say("localhost:8080"), usage },
  );
  const resumed = await kosong(["--model", "test-model", "-p", "and the host?", "--resume", lastImport]);
  expect(resumed.code, resumed.stderr).toBe(0);
  const sent = (server.requests[1]!.body!.messages as { role: string }[]).slice(1).map((m) => m.role);
  expect(sent).toEqual(["user", "assistant", "tool", "assistant", "user"]);
}

/** `/fork` in a terminal (`start` opens it: tmux or in process) copies the session's child into the new session. */
export async function forkCopiesChildren(server: FakeProviderServer, start: StartKosong, home: string, env: Record<string, string>, conversation: ChildConversation): Promise<void> {
  const { cwd, session, agent, sessions } = await sessionWithChild(server, home, env);
  const original = await conversation(home, session, agent);
  const terminal = start(["--model", "test-model", "--resume", session], { cwd, env: cleanEnv(home, env), width: 120, height: 40 });
  await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
  terminal.line("/fork");
  const screen = await terminal.waitFor(/Forked the current branch into session (\S+):/);
  const forked = /Forked the current branch into session (\S+):/.exec(screen)![1]!;
  expect(forked).not.toBe(session);
  expect(await readdir(path.join(sessions, forked, "agents"))).toEqual([agent]);
  const record = JSON.parse(await readFile(path.join(sessions, forked, "agents", agent, "agent.json"), "utf8"));
  expect(record).toMatchObject({ id: agent, parent_session: forked, parent_tool_call_id: "call_a" });
  expect(await conversation(home, forked, agent)).toEqual(original);
  // The original keeps its child.
  expect(existsSync(path.join(sessions, session, "agents", agent, "agent.json"))).toBe(true);
  expect(await conversation(home, session, agent)).toEqual(original);
}
