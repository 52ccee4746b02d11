/**
 * `kosong --wire` driven by Moonshot's own client, `@moonshot-ai/kimi-agent-sdk`,
 * exactly as its README shows: the SDK spawns the BUILT binary (through a
 * small shell wrapper as its `executable`, with a clean environment) against
 * the fake OpenAI-compatible server, and runs its documented flows.
 */
import { existsSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createSession, ProtocolClient, type StreamEvent } from "@moonshot-ai/kimi-agent-sdk";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { kosongBin } from "./kosong-binary.js";
import { callTool, gate, say, useFakeModel, usage } from "./fake-model.js";
import { sessionCheckpointIds } from "./session-checkpoint-ids.js";

const tempDir = useTempDirs();
const fake = useFakeModel();

/** A project folder, and a wrapper script that runs the built kosong (with `flags` before the SDK's) with a clean environment. */
async function setup(flags: string[] = []) {
  const home = await tempDir();
  const workDir = path.join(home, "project");
  await mkdir(workDir);
  const executable = path.join(home, "kosong-wrapper.sh");
  const env = [`PATH=${process.env.PATH}`, `HOME=${home}`, `KOSONG_HOME=${home}/.kosong`, "OPENAI_API_KEY=sk-test", `OPENAI_BASE_URL=${fake.server.url}/v1`, "NO_COLOR=1"];
  await writeFile(executable, `#!/bin/sh\nexec env -i ${env.map((e) => `'${e}'`).join(" ")} '${process.execPath}' '${kosongBin}' ${flags.map((f) => `'${f}' `).join("")}"$@"\n`);
  await chmod(executable, 0o755);
  return { home, workDir, executable };
}

/** An event as the SDK yields it, with the payload fields these tests read. */
interface WireEvent {
  type: string;
  payload: { type?: string; text?: string; id?: string; [key: string]: unknown };
}

async function collect(turn: AsyncIterable<StreamEvent>, onEvent?: (event: WireEvent) => void | Promise<void>): Promise<WireEvent[]> {
  const events: WireEvent[] = [];
  for await (const streamed of turn) {
    const event = streamed as unknown as WireEvent;
    events.push(event);
    await onEvent?.(event);
  }
  return events;
}

const texts = (events: WireEvent[]) => events.flatMap((e) => (e.type === "ContentPart" && e.payload.type === "text" ? [e.payload.text] : [])).join("");
const types = (events: WireEvent[]) => events.map((e) => e.type);
const lastUserMessage = (n: number) => (fake.server.requests[n]!.body!.messages as { role: string; content: unknown }[]).filter((m) => m.role === "user").at(-1);

describe("kosong --wire driven by @moonshot-ai/kimi-agent-sdk", { timeout: 60_000 }, () => {
  it("streams a prompt's events, approves one tool call and rejects another, and resumes and replays the session in a new process", async () => {
    const { home, workDir, executable } = await setup();
    const session = createSession({ workDir, executable, model: "test-model", thinking: false });
    try {
      fake.server.enqueue({ message: { role: "assistant", content: [{ type: "think", think: "Thinking it over." }, { type: "text", text: "Hello " }, { type: "text", text: "from kosong." }] }, usage });
      const turn = session.prompt("say hello");
      const events = await collect(turn);
      expect(await turn.result).toEqual({ status: "finished", steps: undefined });
      expect(types(events)).toEqual(["TurnBegin", "StepBegin", "ContentPart", "ContentPart", "ContentPart", "StatusUpdate", "TurnEnd"]);
      expect(events[0]!.payload).toEqual({ user_input: "say hello" });
      expect(events[2]!.payload).toMatchObject({ type: "think", think: "Thinking it over." });
      expect(texts(events)).toBe("Hello from kosong.");
      expect(events[5]!.payload).toMatchObject({ token_usage: usage });
      expect(fake.server.requests[0]!.body!.model).toBe("test-model");

      // A WriteFile call the client approves: the file is written and the model reads the result.
      fake.server.enqueue({ message: callTool("call_w", "WriteFile", { path: "notes.txt", content: "approved" }), usage }, { message: say("Written."), usage });
      const approved = session.prompt("write notes.txt");
      const approvedEvents = await collect(approved, async (event) => {
        if (event.type === "ApprovalRequest") await approved.approve(event.payload.id!, "approve");
      });
      expect(await approved.result).toMatchObject({ status: "finished" });
      const request = approvedEvents.find((e) => e.type === "ApprovalRequest");
      expect(request?.payload).toMatchObject({ tool_call_id: "call_w", sender: "WriteFile", action: "WriteFile" });
      expect(types(approvedEvents)).toContain("ToolResult");
      expect(approvedEvents.find((e) => e.type === "ToolResult")?.payload).toMatchObject({ tool_call_id: "call_w", return_value: { is_error: false } });
      expect(await readFile(path.join(workDir, "notes.txt"), "utf8")).toBe("approved");
      expect(texts(approvedEvents)).toBe("Written.");

      // A Shell call the client rejects: nothing runs, the turn ends.
      fake.server.enqueue({ message: callTool("call_s", "Shell", { command: "touch rejected.txt" }), usage });
      const rejected = session.prompt("touch a file");
      const rejectedEvents = await collect(rejected, async (event) => {
        if (event.type === "ApprovalRequest") await rejected.approve(event.payload.id!, "reject");
      });
      expect(await rejected.result).toMatchObject({ status: "finished" });
      expect(rejectedEvents.find((e) => e.type === "ApprovalResponse")?.payload).toMatchObject({ response: "reject" });
      expect(rejectedEvents.find((e) => e.type === "ToolResult")?.payload).toMatchObject({ tool_call_id: "call_s", return_value: { is_error: true } });
      expect(existsSync(path.join(workDir, "rejected.txt"))).toBe(false);
    } finally {
      await session.close();
    }

    // The same session id in a new process: the conversation goes on with its history.
    const resumed = createSession({ workDir, executable, sessionId: session.sessionId, model: "test-model" });
    try {
      fake.server.enqueue({ message: say("I remember."), usage });
      const turn = resumed.prompt("what did I ask first?");
      expect(texts(await collect(turn))).toBe("I remember.");
      const history = fake.server.requests.at(-1)!.body!.messages as { role: string; content: unknown }[];
      expect(history.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["say hello", "write notes.txt", "touch a file", "what did I ask first?"]);
    } finally {
      await resumed.close();
    }

    const metadata = JSON.parse(await readFile(path.join(home, ".kosong", "sessions", session.sessionId, "session.json"), "utf8")) as { first_prompt: string };
    expect(metadata.first_prompt).toBe("say hello");

    // replay in another new process sends back what every earlier process sent.
    const client = new ProtocolClient();
    await client.start({ workDir, executablePath: executable, sessionId: session.sessionId });
    try {
      const replay = client.sendReplay();
      const replayed = await collect(replay.events);
      const result = await replay.result;
      expect(result).toMatchObject({ status: "finished", requests: 2 });
      expect(result.events).toBe(replayed.length - 2);
      expect(replayed.filter((e) => e.type === "TurnBegin").map((e) => e.payload)).toEqual(
        ["say hello", "write notes.txt", "touch a file", "what did I ask first?"].map((user_input) => ({ user_input })),
      );
      expect(replayed.filter((e) => e.type === "ApprovalRequest").map((e) => e.payload)).toMatchObject([{ sender: "WriteFile" }, { sender: "Shell" }]);
      expect(texts(replayed)).toBe("Hello from kosong.Written.I remember.");
    } finally {
      await client.stop();
    }
  });

  it("records each checkpoint's time beside the conversation, as the other modes do", async () => {
    const { home, workDir, executable } = await setup();
    const session = createSession({ workDir, executable, model: "test-model", thinking: false });
    try {
      fake.server.enqueue({ message: say("One."), usage }, { message: say("Two."), usage });
      for (const prompt of ["first", "second"]) {
        const turn = session.prompt(prompt);
        await collect(turn);
        expect(await turn.result).toMatchObject({ status: "finished" });
      }
    } finally {
      await session.close();
    }
    const { checkpoints, timed, messages } = await sessionCheckpointIds(path.join(home, ".kosong", "sessions", session.sessionId));
    expect(checkpoints).toEqual([0, 1, 2, 3]);
    expect(timed).toEqual(checkpoints);
    // Each with the messages before it: a step's checkpoint is announced before the step writes it.
    expect(messages).toEqual([0, 1, 2, 3]);
  });

  it("detaches the child agents of the checkpoints a D-Mail reverts, as the interactive mode does", async () => {
    const { home, workDir, executable } = await setup(["--dmail"]);
    const session = createSession({ workDir, executable, model: "test-model", thinking: false });
    try {
      fake.server.enqueue(
        { message: callTool("call_a", "Agent", { description: "look around", prompt: "Say hi", subagent_type: "coder" }), usage },
        { message: say("hi from the child"), usage },
        { message: say("The helper said hi."), usage },
        { message: callTool("call_d", "SendDMail", { message: "start over", checkpoint_id: 0 }), usage },
        { message: say("Back at the start."), usage },
      );
      for (const prompt of ["ask a helper", "go back"]) {
        const turn = session.prompt(prompt);
        await collect(turn);
        expect(await turn.result).toMatchObject({ status: "finished" });
      }
      expect(fake.server.requests).toHaveLength(5);
    } finally {
      await session.close();
    }
    const agents = path.join(home, ".kosong", "sessions", session.sessionId, "agents");
    const [id, ...others] = await readdir(agents);
    expect(others).toEqual([]);
    const record = JSON.parse(await readFile(path.join(agents, id!, "agent.json"), "utf8")) as { status: string; turns: unknown[] };
    expect(record).toMatchObject({ status: "detached", turns: [] });
  });

  it("interrupts a streaming turn, and steers a running one", async () => {
    const { workDir, executable } = await setup();
    const session = createSession({ workDir, executable, model: "test-model" });
    try {
      const words = Array.from({ length: 40 }, (_, i) => ({ type: "text" as const, text: `word${i} ` }));
      // Held after two words until kosong leaves it: the interrupt, not the clock, ends the stream.
      fake.server.enqueue({ message: { role: "assistant", content: words }, usage, holdAfter: 3 });
      const turn = session.prompt("talk for a while");
      let interrupted = false;
      const events = await collect(turn, async (event) => {
        if (event.type === "ContentPart" && !interrupted) {
          interrupted = true;
          await turn.interrupt();
        }
      });
      expect(await turn.result).toEqual({ status: "cancelled", steps: undefined });
      expect(types(events)).toContain("StepInterrupted");
      expect(texts(events).split(" ").length).toBeLessThan(40);

      // steer: input sent while the first step streams joins the turn after that step.
      // The first step holds after two words until the steer is sent: it surely arrives while the step streams.
      const steerSent = gate();
      fake.server.enqueue({ message: { role: "assistant", content: words.slice(0, 10) }, usage, holdAfter: 3, release: steerSent.opened }, { message: say("Steered answer."), usage });
      const steered = session.prompt("count slowly");
      let sent = false;
      const steeredEvents = await collect(steered, async (event) => {
        if (event.type === "ContentPart" && !sent) {
          sent = true;
          await steered.steer("use French instead");
          steerSent.open();
        }
      });
      expect(await steered.result).toMatchObject({ status: "finished" });
      expect(steeredEvents.find((e) => e.type === "SteerInput")?.payload).toEqual({ user_input: "use French instead" });
      expect(steeredEvents.filter((e) => e.type === "StepBegin").map((e) => e.payload)).toEqual([{ n: 1 }, { n: 2 }]);
      expect(lastUserMessage(fake.server.requests.length - 1)).toMatchObject({ content: "use French instead" });
      expect(texts(steeredEvents)).toContain("Steered answer.");
    } finally {
      await session.close();
    }
  });

  it("honours --yolo and --thinking from the SDK's options, and turns plan mode on as kimi-cli does", async () => {
    const { workDir, executable } = await setup();
    const session = createSession({ workDir, executable, model: "test-model", thinking: true, yoloMode: true });
    try {
      fake.server.enqueue({ message: callTool("call_y", "WriteFile", { path: "yolo.txt", content: "no questions" }), usage }, { message: say("Done."), usage });
      const turn = session.prompt("write yolo.txt");
      const events = await collect(turn);
      expect(await turn.result).toMatchObject({ status: "finished" });
      expect(types(events)).not.toContain("ApprovalRequest");
      expect(await readFile(path.join(workDir, "yolo.txt"), "utf8")).toBe("no questions");
      expect(fake.server.requests[0]!.body!.reasoning_effort).toBe("medium");
      await expect(session.setPlanMode(true)).resolves.toBe(true);
    } finally {
      await session.close();
    }
  });

  it("sends a child agent's events as kimi-cli's SubagentEvent, nested under the Agent call, and asks the child's approval as a request", async () => {
    const { workDir, executable } = await setup();
    const session = createSession({ workDir, executable, model: "test-model", thinking: false });
    try {
      fake.server.enqueue(
        { message: callTool("call_a", "Agent", { description: "write a file", prompt: "Write child.txt", subagent_type: "coder" }), usage },
        { message: callTool("call_w", "WriteFile", { path: "child.txt", content: "from the child" }), usage },
        { message: say("child.txt written"), usage },
        { message: say("The helper wrote it."), usage },
      );
      const turn = session.prompt("have a helper write child.txt");
      const events = await collect(turn, async (event) => {
        if (event.type === "ApprovalRequest") await turn.approve(event.payload.id!, "approve");
      });
      expect(await turn.result).toMatchObject({ status: "finished" });
      const nested = events.filter((e) => e.type === "SubagentEvent").map((e) => e.payload as { parent_tool_call_id: string; agent_id: string; subagent_type: string; event: WireEvent });
      expect(nested.length).toBeGreaterThan(3);
      for (const p of nested) expect(p).toMatchObject({ parent_tool_call_id: "call_a", agent_id: expect.stringMatching(/^agent-[0-9a-f]{8}$/), subagent_type: "coder" });
      expect(nested.map((p) => p.event.type)).toEqual(expect.arrayContaining(["TurnBegin", "StepBegin", "ToolCall", "ToolResult", "ContentPart", "TurnEnd"]));
      expect(nested.filter((p) => p.event.type === "ContentPart").map((p) => p.event.payload.text).join("")).toBe("child.txt written");
      // The child's approval is the session's own request, named by the child; never nested.
      const request = events.find((e) => e.type === "ApprovalRequest");
      expect(request?.payload).toMatchObject({ tool_call_id: "call_w", sender: "coder/WriteFile" });
      expect(nested.some((p) => p.event.type === "ApprovalRequest")).toBe(false);
      expect(await readFile(path.join(workDir, "child.txt"), "utf8")).toBe("from the child");
      expect(texts(events)).toBe("The helper wrote it.");
    } finally {
      await session.close();
    }
  });
});
