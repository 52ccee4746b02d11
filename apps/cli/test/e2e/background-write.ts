/**
 * The scenario the background-approval tests share (print mode, --wire and
 * the interactive prompt): a project whose child agents wait at their start
 * until the test lets them go, and the model's answers for a parent that
 * starts a background coder and ends its turn, the coder then writing
 * notes.txt (which asks for approval) and answering.
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { FakeProviderServer } from "@kosong/core/testing";
import { callTool, say, usage } from "./fake-model.js";
import { gateSubagentStart } from "./subagent-start-gate.js";

/** A project under `home` whose SubagentStart hook waits for `<cwd>/go`; `go()` lets the child start. */
export async function gatedProject(home: string, server: FakeProviderServer) {
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  const go = await gateSubagentStart(home, cwd);
  const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };
  return { home, cwd, env, go };
}

/** Queues the parent's start of a background coder, the coder's WriteFile of notes.txt and its answer, and the parent's next answer. */
export function enqueueBackgroundWrite(server: FakeProviderServer): void {
  server.enqueue(
    { message: callTool("call_b", "Agent", { description: "write notes", prompt: "Write notes.txt", subagent_type: "coder", run_in_background: true }), usage },
    { message: say("Started it."), usage },
    { message: callTool("w1", "WriteFile", { path: "notes.txt", content: "from the background\n" }), usage },
    { message: say("notes written"), usage },
    { message: say("The agent is done."), usage },
  );
}
