/**
 * Plan mode's guards through the built binary, driven by
 * `@moonshot-ai/kimi-agent-sdk` over `--wire` against the fake server:
 * a child agent of a session in plan mode is refused writes as the parent
 * is (a background child started before plan mode was switched on too, by
 * the mode at the time it acts), and leaving plan mode is asked every time
 * (approving one plan "for the session" approves no later plan).
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { createSession, type StreamEvent } from "@moonshot-ai/kimi-agent-sdk";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { callTool, say, usage } from "./fake-model.js";
import { kosongSuite } from "./kosong-suite.js";
import { gateSubagentStart } from "./subagent-start-gate.js";
import { wireExecutable } from "./wire-wrapper.js";

const tempDir = useTempDirs();
const { server } = await kosongSuite();

async function setup() {
  const home = await tempDir();
  const workDir = path.join(home, "project");
  await mkdir(workDir);
  return { home, workDir, executable: await wireExecutable(home, `${server.url}/v1`) };
}

type WireEvent = { type: string; payload: { id?: string; [key: string]: unknown } };
type Sent = { role: string; content?: unknown; tool_call_id?: string };

async function collect(turn: AsyncIterable<StreamEvent>, onEvent?: (event: WireEvent) => Promise<void>): Promise<WireEvent[]> {
  const events: WireEvent[] = [];
  for await (const streamed of turn) {
    const event = streamed as unknown as WireEvent;
    events.push(event);
    await onEvent?.(event);
  }
  return events;
}

/** Starts the SDK's client with a first turn (set_plan_mode needs one running). */
async function started(session: ReturnType<typeof createSession>): Promise<void> {
  server.enqueue({ message: say("Hello."), usage });
  const turn = session.prompt("hello");
  await collect(turn);
  await turn.result;
}

/** The result of call `id` the model was sent in any request. */
function toolResult(id: string): string {
  for (const request of server.requests) {
    const found = (request.body!.messages as Sent[]).find((m) => m.role === "tool" && m.tool_call_id === id);
    if (found) return typeof found.content === "string" ? found.content : JSON.stringify(found.content);
  }
  return "";
}

/** The records of the session's children. */
async function childRecords(home: string): Promise<Array<{ status: string }>> {
  const sessions = path.join(home, ".kosong", "sessions");
  const out = [];
  for (const id of await readdir(sessions).catch(() => [])) {
    const agents = path.join(sessions, id, "agents");
    for (const child of await readdir(agents).catch(() => [])) out.push(JSON.parse(await readFile(path.join(agents, child, "agent.json"), "utf8")));
  }
  return out;
}

describe("plan mode's guards (kosong --wire)", { timeout: 90_000 }, () => {
  it("runs a coder child in plan mode with the parent's refusals: no WriteFile, no writing Shell command (yolo or not)", async () => {
    const { workDir, executable } = await setup();
    const session = createSession({ workDir, executable, model: "test-model", thinking: false, yoloMode: true });
    try {
      await started(session);
      await expect(session.setPlanMode(true)).resolves.toBe(true);
      server.enqueue(
        { message: callTool("call_a", "Agent", { description: "write files", prompt: "Write child.txt and touch made.txt", subagent_type: "coder" }), usage },
        { message: callTool("call_w", "WriteFile", { path: "child.txt", content: "from the child" }), usage },
        { message: callTool("call_s", "Shell", { command: "touch made.txt" }), usage },
        { message: callTool("call_r", "Shell", { command: "ls" }), usage },
        { message: say("I could not write anything."), usage },
        { message: say("The helper was refused."), usage },
      );
      const turn = session.prompt("have a helper write files");
      await collect(turn);
      expect(await turn.result).toMatchObject({ status: "finished" });
      expect(existsSync(path.join(workDir, "child.txt"))).toBe(false);
      expect(existsSync(path.join(workDir, "made.txt"))).toBe(false);
      expect(toolResult("call_w")).toContain("Plan mode is on: WriteFile is refused");
      expect(toolResult("call_s")).toContain("Plan mode is on: Shell runs only commands that read");
      // Reading still works in the child, and the child's answer is the Agent call's result.
      expect(toolResult("call_r")).not.toContain("Plan mode is on");
      expect(toolResult("call_a")).toContain("I could not write anything.");
    } finally {
      await session.close();
    }
  });

  it("refuses a background child's writes once plan mode is switched on after it started (the mode when it acts counts)", async () => {
    const { home, workDir, executable } = await setup();
    const open = await gateSubagentStart(home, workDir);
    const session = createSession({ workDir, executable, model: "test-model", thinking: false, yoloMode: true });
    try {
      server.enqueue(
        { message: callTool("call_b", "Agent", { description: "write later", prompt: "Write late.txt", subagent_type: "coder", run_in_background: true }), usage },
        { message: say("Started a helper."), usage },
      );
      const first = session.prompt("start a helper in the background");
      await collect(first);
      expect(await first.result).toMatchObject({ status: "finished" });
      // The child waits at its start (the gate): plan mode goes on before it acts.
      await expect(session.setPlanMode(true)).resolves.toBe(true);
      server.enqueue({ message: callTool("call_late", "WriteFile", { path: "late.txt", content: "late" }), usage }, { message: say("refused"), usage });
      await open();
      await expect.poll(async () => (await childRecords(home)).map((r) => r.status), { timeout: 30_000 }).toEqual(["finished"]);
      expect(existsSync(path.join(workDir, "late.txt"))).toBe(false);
      expect(toolResult("call_late")).toContain("Plan mode is on: WriteFile is refused");
      expect(toolResult("call_late")).toContain("You are a subagent of a session in plan mode");
    } finally {
      await session.close();
    }
  });

  it("asks again for the next plan after one plan was approved 'for the session'", async () => {
    const { workDir, executable } = await setup();
    const session = createSession({ workDir, executable, model: "test-model", thinking: false });
    try {
      await started(session);
      await session.setPlanMode(true);
      server.enqueue({ message: callTool("plan_1", "ExitPlanMode", { plan: "1. Write a.txt." }), usage }, { message: say("Carrying out plan one."), usage });
      const first = session.prompt("plan one");
      const firstEvents = await collect(first, async (event) => {
        if (event.type === "ApprovalRequest") await first.approve(event.payload.id!, "approve_for_session");
      });
      expect(firstEvents.filter((e) => e.type === "ApprovalRequest")).toHaveLength(1);
      expect(toolResult("plan_1")).toContain("The user approved the plan. Plan mode is off");
      await expect(session.setPlanMode(true)).resolves.toBe(true);
      server.enqueue({ message: callTool("plan_2", "ExitPlanMode", { plan: "1. Delete everything." }), usage }, { message: say("Revising."), usage });
      const second = session.prompt("plan two");
      const requests: WireEvent[] = [];
      await collect(second, async (event) => {
        if (event.type !== "ApprovalRequest") return;
        requests.push(event);
        await second.approve(event.payload.id!, "reject");
      });
      // The second plan is asked about, not approved by the first answer.
      expect(requests).toHaveLength(1);
      expect(requests[0]!.payload).toMatchObject({ tool_call_id: "plan_2", sender: "ExitPlanMode" });
      expect(toolResult("plan_2")).not.toContain("approved");
    } finally {
      await session.close();
    }
  });
});
