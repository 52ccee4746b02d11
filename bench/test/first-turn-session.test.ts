import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startFakeProviderServer, type FakeProviderRequest, type FakeProviderServer } from "@kosong/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startInTerminal } from "../src/agent-terminal.ts";
import { ensureCliBuilt, hasScript, kosongBin, makeProject } from "../src/cli-process.ts";
import { codexBinary, codexEnv, writeCodexConfig } from "../src/codex-cli.ts";
import { codexReady, codexStartingUp, type FirstTurnAgent, type FirstTurnRecord, firstTurn, kosongReady, lastUserText, replyText, type SessionRecord, twoTurns } from "../src/first-turn-session.ts";
import { stopProcessesUnder } from "../src/process-tree.ts";

/** A request's body as the fake server records it. */
const request = (body: FakeProviderRequest["body"]): FakeProviderRequest => ({ method: "POST", path: "/v1/x", url: "/v1/x", headers: {}, body, rawBody: JSON.stringify(body) });

/** The assistant texts a request carries in its history (Chat Completions or Responses). */
function assistantTexts(req: FakeProviderRequest): string {
  return JSON.stringify((req.body?.messages ?? req.body?.input ?? []) as unknown[]);
}

/** What every session of the benchmark must show, whichever the agent: each turn's typed request received, each reply drawn, the figures in order. */
function expectSaneSession({ turns, typedRequests, screen }: SessionRecord): void {
  for (const [i, requests] of typedRequests.entries()) {
    // Exactly one request of the turn carried the typed text as its last user message.
    expect(requests).toHaveLength(1);
    expect(lastUserText(requests[0]!)).toBe("hi");
    expect(screen).toContain(replyText(i + 1));
  }
  // The second turn continued the same conversation: its request carries the first reply.
  expect(assistantTexts(typedRequests[1][0]!)).toContain(replyText(1));
  for (const turn of turns) {
    expect(turn.request).toBeGreaterThan(0);
    // The reply is drawn after its request reached the server, and the agent is ready again after that.
    expect(turn.reply).toBeGreaterThanOrEqual(turn.request);
    expect(turn.ready).toBeGreaterThanOrEqual(turn.reply);
    expect(turn.cpu).toBeGreaterThan(0);
    expect(turn.ownCpu).toBeGreaterThan(0);
  }
}

/**
 * What every sample of codex-side-by-side's readiness rows must show: the typed request received once, the reply drawn, the
 * times from the spawn in order, and the RSS read from the agent's live processes (a process gone reads 0).
 */
function expectSaneFirstTurn({ turn, memory, typedRequests, screen }: FirstTurnRecord, processes: number): void {
  expect(typedRequests).toHaveLength(1);
  expect(lastUserText(typedRequests[0]!)).toBe("hi");
  expect(screen).toContain(replyText(1));
  expect(turn.readyAfterStart).toBeGreaterThan(0);
  // Enter follows the prompt (`h` and `i` typed in between), the request follows Enter, the reply the request.
  expect(turn.enterAfterStart).toBeGreaterThan(turn.readyAfterStart);
  expect(turn.request).toBeGreaterThan(0);
  expect(turn.reply).toBeGreaterThanOrEqual(turn.request);
  expect(memory).not.toBeNull();
  for (const read of [memory!.atRequest, memory!.atReply]) {
    expect(read.processes).toBeGreaterThanOrEqual(processes);
    // Read from live processes (one gone reads 0), its own process among them.
    expect(read.ownRssMb).toBeGreaterThan(0);
    expect(read.rssMb).toBeGreaterThanOrEqual(read.ownRssMb);
    expect(read.anonMb).toBeGreaterThan(0);
    expect(read.anonMb).toBeLessThan(read.rssMb);
  }
}

describe("lastUserText", () => {
  it("reads the last user message of a Chat Completions request, as a string or as parts", () => {
    expect(lastUserText(request({ messages: [{ role: "user", content: "first" }, { role: "assistant", content: "Reply one." }, { role: "user", content: "hi" }] }))).toBe("hi");
    expect(lastUserText(request({ messages: [{ role: "user", content: [{ type: "text", text: "h" }, { type: "text", text: "i" }] }] }))).toBe("hi");
  });

  it("reads a Responses request's last user item, and tells Codex's title request from the turn's", () => {
    const turn = { input: [{ type: "message", role: "developer", content: [{ type: "input_text", text: "You are Codex" }] }, { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }] };
    const title = { input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "Generate a concise title.\n\nUser prompt:\nhi" }] }] };
    expect(lastUserText(request(turn))).toBe("hi");
    expect(lastUserText(request(title))).not.toBe("hi");
    expect(lastUserText(request(null))).toBeNull();
  });
});

describe.skipIf(!hasScript())("the agent's terminal", () => {
  it("answers the kitty keyboard protocol's query with the flags the program pushed, when asked to", async () => {
    // The program pushes flags 7, asks for them, and prints the answer it read (raw, so the reply needs no newline).
    const program = `stty raw -echo; printf '\\033[>7u\\033[?u'; r=$(dd bs=1 count=5 2>/dev/null | od -An -c | tr -d ' \\n'); printf 'answer:%s|\\r\\n' "$r"; sleep 5`;
    const terminal = startInTerminal("sh", ["-c", program], { env: { PATH: process.env.PATH ?? "" }, cwd: os.tmpdir(), keyboardProtocol: true });
    try {
      await terminal.until(() => terminal.screen().includes("|"), "the answer");
      expect(terminal.screen()).toContain("answer:033[?7u|");
    } finally {
      await terminal.stop();
    }
  });
});

describe.skipIf(!hasScript())("a first-turn session (the cli-first-turn benchmark's sample)", () => {
  // Under the home, not /tmp: Codex will not put its helpers in a temporary folder.
  const work = mkdtempSync(path.join(os.homedir(), ".kosong-first-turn-test-"));
  let server: FakeProviderServer;
  let project: string;

  beforeAll(async () => {
    ensureCliBuilt();
    server = await startFakeProviderServer();
    project = makeProject(work);
  });
  afterAll(async () => {
    await server.close();
    await stopProcessesUnder(work);
    rmSync(work, { recursive: true, force: true, maxRetries: 5 });
  });

  it("drives a real kosong through two typed turns: the typed request reaches the server and each reply is drawn", async () => {
    const home = path.join(work, ".kosong");
    const env = { PATH: process.env.PATH ?? "", HOME: work, KOSONG_HOME: home, OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, TERM: "xterm-256color" };
    const agent: FirstTurnAgent = { command: process.execPath, args: [kosongBin, "--model", "bench-model"], env, cwd: project, home, ready: kosongReady };
    const record = await twoTurns(agent, server, 0);
    expectSaneSession(record);
    // kosong's main thread is read on its own (Linux /proc).
    for (const turn of record.turns) expect(turn.mainThreadCpu).toBeGreaterThan(0);
  }, 60_000);

  it("times a real kosong's first turn typed the moment its prompt shows, and reads its processes' RSS while the reply is held (codex-side-by-side)", async () => {
    const home = path.join(work, ".kosong");
    const env = { PATH: process.env.PATH ?? "", HOME: work, KOSONG_HOME: home, OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, TERM: "xterm-256color" };
    const agent: FirstTurnAgent = { command: process.execPath, args: [kosongBin, "--model", "bench-model"], env, cwd: project, home, ready: kosongReady };
    const record = await firstTurn(agent, server, { pauseMs: 0, memory: true });
    expectSaneFirstTurn(record, 1);
    // kosong's prompt takes the turn at once: it never says it is still starting.
    expect(record.waitedForStartup).toBe(false);
  }, 60_000);

  it.skipIf(codexBinary() === null)("drives Codex CLI's TUI the same way (KOSONG_BENCH_CODEX)", async () => {
    const codexHome = path.join(work, ".codex");
    writeCodexConfig(codexHome, server.url, project);
    const agent: FirstTurnAgent = { command: codexBinary()!, args: [], env: { ...codexEnv(work, codexHome), TERM: "xterm-256color" }, cwd: project, home: codexHome, ready: codexReady, startingUp: codexStartingUp };
    // The first session in a fresh home installs and starts Codex's daemon, and may drop the Enter meanwhile; the bench warms up the same way.
    await twoTurns(agent, server, 700).catch(() => undefined);
    expectSaneSession(await twoTurns(agent, server, 700));
    // Typed the moment the composer shows: the RSS counts the TUI and the app-server daemon that sends the request.
    expectSaneFirstTurn(await firstTurn(agent, server, { pauseMs: 0, memory: true }), 2);
  }, 120_000);
});
