/**
 * One fresh interactive session of an agent (kosong, or Codex CLI's TUI),
 * timed over its first turns as a user lives them: two turns for the
 * `cli-first-turn` benchmark ({@link twoTurns}), the first turn typed the
 * moment the prompt shows for `codex-side-by-side`'s readiness rows
 * ({@link firstTurn}).
 *
 * The agent runs in a pseudo-terminal drawn by a headless xterm.js
 * (`./agent-terminal.ts`, answering the kitty keyboard protocol's query as
 * kitty, Ghostty or WezTerm do: Codex submits on Enter only then) against
 * the fake provider server. For each turn:
 * wait until the agent is ready for it, wait `pauseMs` more, type `h`, then
 * `i` once the input line shows `h`, then Enter once it shows `hi` (each key
 * after the agent drew the last, as a user watching the screen types: Codex
 * takes keys that arrive within a few ms of each other as a paste, and an
 * Enter inside a paste as a new line), note when the server got the request
 * carrying `hi` as its last user message, and when the reply's text
 * (`Reply one.`, `Reply two.`) is on the screen.
 *
 * CPU time over Enter → the reply drawn is read from `/proc` for all the
 * agent's processes and threads: its own process, its descendants, and the
 * processes running from its home folder (Codex's app-server daemon, which
 * sends the requests); and for its own process alone.
 *
 * With `memory`, the memory of all those processes (RSS and PSS, summed)
 * and of the agent's own process is read when the typed request reaches the
 * server, the reply held back until it is read (the agent waits as it was
 * when it sent the request), and again when the reply is drawn.
 */
import { performance } from "node:perf_hooks";
import type { FakeProviderRequest, FakeProviderServer } from "@kosong/core/testing";
import { type AgentTerminal, startInTerminal } from "./agent-terminal.ts";
import { codexComposerShown } from "./codex-cli.ts";
import { agentProcesses, cpuMs, memoryOf, type ProcessesMemory, processCpuMs, rssMb, threadCpuMs } from "./process-tree.ts";

/** An agent to time: how to start it, and how its screen says it is ready for a turn. */
export interface FirstTurnAgent {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The folder the agent's helper processes run from (its home), counted as its own. */
  home: string;
  /** Whether the agent is ready for the next turn, given its terminal and the length of its output when the last Enter was typed (0 before the first). */
  ready(terminal: AgentTerminal, since: number): boolean;
  /** Whether the screen says the agent is still starting and holds a submitted turn until it is (Codex: "Waiting for startup"). */
  startingUp?(screen: string): boolean;
}

/** One turn's figures, in ms from Enter unless said (CPU times: ms spent between Enter and the reply drawn). */
export interface TurnTimes {
  /** The spawn → the agent ready for this turn (its prompt or composer on the screen). */
  readyAfterStart: number;
  /** The spawn → Enter typed. */
  enterAfterStart: number;
  /** Enter → the request carrying the typed text reached the server. */
  request: number;
  /** Enter → the reply's text drawn on the screen. */
  reply: number;
  /** Enter → the agent ready for the next turn again (kosong: its next prompt drawn). */
  ready: number;
  /** CPU time of all the agent's processes (all threads), Enter → the reply drawn. */
  cpu: number;
  /** CPU time of the agent's own process (all threads), Enter → the reply drawn. */
  ownCpu: number;
  /** CPU time of the agent's main thread, Enter → ready again (NaN when not read). */
  mainThreadCpu: number;
}

/** The memory of the agent's processes over its first turn ({@link SessionOptions.memory}). */
export interface FirstTurnMemory {
  /** When the typed request reached the server (the agent waiting for the reply, held until this was read). */
  atRequest: TurnMemory;
  /** When the reply was drawn. */
  atReply: TurnMemory;
}

/** The memory of all the agent's processes (its own, its descendants, the helpers running from its home), and of its own process. */
export interface TurnMemory extends ProcessesMemory {
  /** RSS of the agent's own process, in MB. */
  ownRssMb: number;
}

/** How a session is run. */
export interface SessionOptions {
  /** How long to wait after the agent is ready before typing each turn, in ms (0: the moment it is). */
  pauseMs: number;
  /**
   * Read the memory of the agent's processes ({@link TurnMemory}) when the typed request reaches the server (the reply held
   * until then) and when the reply is drawn. The reads take the bench's thread some ms each (a search through `/proc`),
   * so the times seen after them (the reply drawn, ready again) are late by as much: rows of those times run without it.
   */
  memory?: boolean;
}

/** What a first turn showed, beside its figures ({@link firstTurn}). */
export interface FirstTurnRecord {
  turn: TurnTimes;
  /** Null unless {@link SessionOptions.memory}. */
  memory: FirstTurnMemory | null;
  /** The requests whose last user message was the typed text. */
  typedRequests: FakeProviderRequest[];
  /** Whether the screen said the agent was still starting after Enter ({@link FirstTurnAgent.startingUp}). */
  waitedForStartup: boolean;
  screen: string;
}

/** What a session showed, beside its figures: the requests of each turn that carried the typed text, and the screen at its end. */
export interface SessionRecord {
  turns: [TurnTimes, TurnTimes];
  /** Per turn, the requests whose last user message was the typed text. */
  typedRequests: [FakeProviderRequest[], FakeProviderRequest[]];
  /** Per turn, whether the screen said the agent was still starting after Enter ({@link FirstTurnAgent.startingUp}). */
  waitedForStartup: [boolean, boolean];
  screen: string;
}

/** The text typed for each turn. */
export const typedText = "hi";

/** The reply of turn `n` (1, 2), as the server sends it and the screen shows it. */
export const replyText = (n: number): string => `Reply ${n === 1 ? "one" : "two"}.`;

/** The text of the last user message of a request (Chat Completions `messages`, Responses `input`), or null. */
export function lastUserText(request: FakeProviderRequest): string | null {
  const items = request.body?.messages ?? request.body?.input;
  if (!Array.isArray(items)) return null;
  const last = items.filter((item) => typeof item === "object" && item !== null && !Array.isArray(item) && item.role === "user").at(-1);
  if (typeof last !== "object" || last === null || Array.isArray(last)) return null;
  const content = last.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  return content.map((part) => (typeof part === "object" && part !== null && !Array.isArray(part) && typeof part.text === "string" ? part.text : "")).join("");
}

/** The line the agent's input shows: the last line of the screen that starts with `›`. */
function inputLine(terminal: AgentTerminal): string {
  return terminal.screen().split("\n").filter((line) => line.startsWith("›")).at(-1)?.trimEnd() ?? "";
}

/** kosong is ready once its prompt (`› `) follows the status line it draws at the start and after each turn, in the output since the last Enter. */
export const kosongReady = (terminal: AgentTerminal, since: number): boolean => {
  const output = terminal.output();
  const status = output.indexOf("compaction:", since);
  return status >= 0 && output.includes("› ", status);
};

/** Codex holds a turn submitted before its session is ready, and says so. */
export const codexStartingUp = (screen: string): boolean => screen.includes("Waiting for startup");

/** Codex is ready once its composer shows and no turn is working (its status line offers `esc to interrupt` while one is). */
export const codexReady = (terminal: AgentTerminal): boolean => {
  const screen = terminal.screen();
  return codexComposerShown(screen) && !screen.includes("esc to interrupt");
};

/** Resolves with the instant `check` first held, polling every millisecond; rejects after `timeoutMs`. */
function polled(check: () => boolean, what: () => string, timeoutMs = 15_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const test = () => {
      const now = performance.now();
      if (check()) {
        clearInterval(timer);
        resolve(now);
      } else if (now - started > timeoutMs) {
        clearInterval(timer);
        reject(new Error(`timed out waiting for ${what()}`));
      }
    };
    const timer = setInterval(test, 1);
    test();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs a fresh session of `agent` through two turns, each typed `pauseMs` after the agent is ready; ends it. */
export async function twoTurns(agent: FirstTurnAgent, server: FakeProviderServer, pauseMs: number): Promise<SessionRecord> {
  const { turns, typedRequests, waitedForStartup, screen } = await session(agent, server, 2, { pauseMs });
  return { turns: [turns[0]!, turns[1]!], typedRequests: [typedRequests[0]!, typedRequests[1]!], waitedForStartup: [waitedForStartup[0]!, waitedForStartup[1]!], screen };
}

/** Runs a fresh session of `agent` through its first turn, typed `options.pauseMs` after the agent is ready; ends it. */
export async function firstTurn(agent: FirstTurnAgent, server: FakeProviderServer, options: SessionOptions): Promise<FirstTurnRecord> {
  const { turns, memory, typedRequests, waitedForStartup, screen } = await session(agent, server, 1, options);
  return { turn: turns[0]!, memory: memory[0]!, typedRequests: typedRequests[0]!, waitedForStartup: waitedForStartup[0]!, screen };
}

/** Whether `error` says that no request carrying the typed text came after Enter (the agent dropped the Enter). */
export const droppedEnter = (error: unknown): boolean => error instanceof Error && error.message.includes("waiting for the request");

/**
 * Runs `session` once more when the agent dropped the Enter ({@link droppedEnter}; seen with Codex while its daemon
 * starts), calling `onRetry` first.
 */
export async function againOnDroppedEnter<T>(session: () => Promise<T>, onRetry: () => void = () => undefined): Promise<T> {
  try {
    return await session();
  } catch (error) {
    if (!droppedEnter(error)) throw error;
    onRetry();
    return await session();
  }
}

/** Runs a fresh session of `agent` through `count` turns; ends it. */
async function session(agent: FirstTurnAgent, server: FakeProviderServer, count: number, { pauseMs, memory = false }: SessionOptions) {
  const terminal = startInTerminal(agent.command, agent.args, { env: agent.env, cwd: agent.cwd, keyboardProtocol: true });
  let since = 0;
  const typed: FakeProviderRequest[][] = [];
  const waited: boolean[] = [];
  const memoryReads: (FirstTurnMemory | null)[] = [];
  const turn = async (n: number): Promise<TurnTimes> => {
    // With `memory`, the replies wait (their headers sent) until the agent's processes were read.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const hold = memory ? { holdAfter: 0, release: released } : {};
    // A queued reply for a request of the agent's own beside the turn's (Codex asks the model for a thread title after its
    // first turn; the request reached the server just before the second turn's).
    server.reset();
    server.enqueue(...[0, 1].map(() => ({ message: { role: "assistant" as const, content: [{ type: "text" as const, text: replyText(n) }] }, ...hold })));
    const readyAt = await terminal.until(() => agent.ready(terminal, since), `the prompt of turn ${n}`);
    const pid = terminal.pid();
    if (pid === null) throw new Error(`${agent.command} is not running`);
    if (pauseMs > 0) await sleep(pauseMs);
    for (let i = 1; i <= typedText.length; i++) {
      terminal.type(typedText[i - 1]!);
      await terminal.until(() => inputLine(terminal).endsWith(typedText.slice(0, i)), `the input line to show ${JSON.stringify(typedText.slice(0, i))}`);
    }
    const cpuBefore = new Map([...agentProcesses(pid, agent.home)].map((p) => [p, processCpuMs(p)]));
    const ownBefore = cpuMs(pid);
    const mainBefore = threadCpuMs(pid, pid);
    since = terminal.output().length;
    const enter = performance.now();
    terminal.type("\r");
    // Watched from Enter on: the screen may say the agent is still starting before the request leaves.
    let startingUp = false;
    const replyDrawn = terminal.until(() => {
      const screen = terminal.screen();
      startingUp ||= agent.startingUp?.(screen) ?? false;
      return screen.includes(replyText(n));
    }, `the reply of turn ${n}`);
    replyDrawn.catch(() => undefined);
    const requestAt = await polled(
      () => server.requests.some((request) => lastUserText(request) === typedText),
      () => `the request of turn ${n} (the server got ${server.requests.length}); the screen ends with ${JSON.stringify(terminal.screen().trimEnd().slice(-600))}`,
    );
    const memoryNow = (): TurnMemory => ({ ownRssMb: rssMb(pid), ...memoryOf(agentProcesses(pid, agent.home)) });
    const atRequest = memory ? memoryNow() : null;
    release();
    const replyAt = await replyDrawn;
    memoryReads.push(atRequest && { atRequest, atReply: memoryNow() });
    // The processes known at Enter, read at once (one that ended meanwhile counts in its parent's reaped time). Those
    // started since are looked for once the agent is ready again: the search through /proc takes milliseconds, which
    // would delay seeing the prompt; all their time falls in the turn.
    const known = [...cpuBefore].reduce((sum, [p, before]) => sum + Math.max(0, processCpuMs(p) - before), 0);
    const ownCpu = cpuMs(pid) - ownBefore;
    const readyAgainAt = await terminal.until(() => agent.ready(terminal, since), `the prompt after turn ${n}`);
    const mainThreadCpu = threadCpuMs(pid, pid) - mainBefore;
    const started = [...agentProcesses(pid, agent.home)].filter((p) => !cpuBefore.has(p));
    const cpu = known + started.reduce((sum, p) => sum + processCpuMs(p), 0);
    typed.push(server.requests.filter((request) => lastUserText(request) === typedText));
    waited.push(startingUp);
    return {
      readyAfterStart: readyAt - terminal.startedAt,
      enterAfterStart: enter - terminal.startedAt,
      request: requestAt - enter,
      reply: replyAt - enter,
      ready: readyAgainAt - enter,
      cpu,
      ownCpu,
      mainThreadCpu,
    };
  };
  try {
    const turns: TurnTimes[] = [];
    for (let n = 1; n <= count; n++) turns.push(await turn(n));
    return { turns, memory: memoryReads, typedRequests: typed, waitedForStartup: waited, screen: terminal.screen() };
  } finally {
    await terminal.stop();
  }
}
