/**
 * `/agents <id>` on a child that is still running, in a real terminal
 * (tmux), the built binary against the fake provider server: a background
 * child held in a Shell command until the test lets it go; its transcript
 * so far is shown (read without the child's lock), then it finishes. Shared
 * by the file and the PostgreSQL (`--store`) suites.
 */
import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { FakeProviderServer } from "@kosong/core/testing";
import { expect } from "vitest";
import { callTool, say, usage } from "./fake-model.js";
import { cleanEnv } from "./kosong-binary.js";
import type { StartKosong } from "./kosong-suite.js";
import { gateSubagentStart } from "./subagent-start-gate.js";

/** Runs the scenario in a new session under `home` with `env` added (a store URL), on a terminal `start` opens (tmux or in process). */
export async function showRunningChildTranscript(server: FakeProviderServer, start: StartKosong, home: string, env: Record<string, string> = {}): Promise<void> {
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  const open = await gateSubagentStart(home, cwd);
  const terminal = start(["--model", "test-model", "--yolo"], {
    cwd,
    env: cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, ...env }),
    width: 120,
    height: 50,
  });
  await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
  server.enqueue(
    { message: callTool("call_b", "Agent", { description: "wait for release", prompt: "Wait until the release file exists", subagent_type: "coder" , run_in_background: true }), usage },
    { message: say("Started a helper."), usage },
  );
  terminal.line("start a helper");
  await terminal.waitFor(/Started a helper\.[\s\S]*›\s*$/, { from: "› start a helper" });
  const sessions = path.join(home, ".kosong", "sessions");
  const [session] = await readdir(sessions);
  const [agent] = await readdir(path.join(sessions, session!, "agents"));
  // The child's first step waits in Shell for the release file: it runs, holding its conversation's lock.
  server.enqueue(
    { message: { role: "assistant", content: [{ type: "text", text: "Waiting for the release file." }], tool_calls: [{ type: "function", id: "s1", function: { name: "Shell", arguments: JSON.stringify({ command: "while [ ! -e release ]; do sleep 0.05; done; echo released" }) } }] }, usage },
    { message: say("released, done"), usage },
  );
  await open();
  await expect.poll(() => server.requests.length, { timeout: 30_000 }).toBe(3);
  // The assistant's step is written once its tools have run: until then the transcript holds the prompt.
  terminal.line(`/agents ${agent}`);
  const shown = await terminal.waitFor(/Still running: this is its conversation so far[^\n]*\n[\s\S]*›\s*$/, { from: `› /agents ${agent}` });
  expect(shown).toContain(`${agent} · coder · running · model test-model`);
  expect(shown).toContain("Wait until the release file exists");
  expect(shown).not.toMatch(/lock|error/i);
  await writeFile(path.join(cwd, "release"), "");
  await expect.poll(() => server.requests.length, { timeout: 30_000 }).toBe(4);
  // The child marks itself finished after its last answer is stored, a moment after the request: ask until it has.
  await expect
    .poll(() => {
      terminal.line("/agents");
      return terminal.waitFor(/\/agents <id> shows one's transcript\.\n[\s\S]*›\s*$/, { from: "› /agents\n" });
    }, { timeout: 30_000, interval: 200 })
    .toMatch(new RegExp(`${agent}  coder  finished`));
  terminal.line(`/agents ${agent}`);
  const after = await terminal.waitFor(/released, done[\s\S]*›\s*$/, { from: `› /agents ${agent}\n` });
  expect(after).not.toContain("Still running");
}
