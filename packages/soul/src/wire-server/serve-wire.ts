/**
 * `serveWire`: serves a soul over kimi-cli's wire protocol (JSON-RPC 2.0,
 * one message per line), the protocol `@moonshot-ai/kimi-agent-sdk` and
 * kimi's editor extensions speak. The client calls `initialize`, `prompt`
 * (answered when the turn ends), `steer`, `cancel` and `replay`; the server
 * sends the turn's events as `event` notifications and approval requests as
 * `request`s the client answers (also a request made while no turn runs, by
 * work the host runs in the background, such as a background subagent). Features kosong has no equivalent of are
 * answered as kimi-cli answers with them off: no slash commands, no
 * questions unless the host offers them (`onQuestions`), external tools rejected, `set_plan_mode` an invalid-state error unless
 * the host has a plan mode (`planMode`).
 */
import { ChatProviderError } from "@kosong/core";
import { EmptyInputError, SoulBusyError } from "../errors.js";
import type { UserInput } from "../events/index.js";
import type { Soul, TurnResult } from "../loop/index.js";
import { readLines } from "./json-lines.js";
import { WireLog } from "./wire-log.js";
import { type WireQuestionChannel, WireQuestions } from "./wire-questions.js";
import { toWireMessage, wireMessageKind, type WireMessage } from "./wire-message.js";
import { approvalResultSchema, paramSchemas, rpcMessageSchema, WIRE_PROTOCOL_VERSION, WireErrorCode, type RpcId, type WireMethod } from "./wire-rpc.js";

/** Options of {@link serveWire}. */
export interface ServeWireOptions {
  /** Who answers `initialize` (default: the agent's name, version "unknown"). */
  server?: { name: string; version: string };
  /**
   * A `wire.jsonl` file (kimi-cli's format) that records every message sent,
   * and that `replay` sends again. Without it `replay` has nothing to send.
   */
  log?: string;
  /** Stops serving: the running turn is aborted and the promise settles once it has ended. */
  signal?: AbortSignal;
  /** A line longer than this is refused with a parse error (default 100 MB, as kimi-cli). */
  maxLineBytes?: number;
  /**
   * Offer structured questions (`QuestionRequest`): called once with the
   * channel a tool asks through (an `AskUserQuestion` tool of the host).
   * Without it the server answers `supports_question: false`.
   */
  onQuestions?: (channel: WireQuestionChannel) => void;
  /**
   * The host's plan mode, switched by `set_plan_mode` (kimi-cli's
   * `{enabled}` → `{status: "ok", plan_mode}`): `set` returns whether it is
   * on now. Without it `set_plan_mode` is an invalid-state error.
   */
  planMode?: { set(enabled: boolean): boolean };
}

/** Where the server writes its lines (a stream such as `process.stdout`). */
export interface WireOutput {
  write(line: string): unknown;
}

/** A JSON-RPC failure answered to the client. */
class RpcFailure extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

const busy = () => new RpcFailure(WireErrorCode.invalidState, "An agent turn is already in progress");
const idle = () => new RpcFailure(WireErrorCode.invalidState, "No agent turn is in progress");

/**
 * Serves `soul` on `input` (the client's lines, e.g. `process.stdin`) and
 * `output` until `input` ends or `options.signal` aborts; then aborts the
 * running turn and resolves once it has ended and the log is closed. One
 * turn runs at a time; requests are handled as they arrive (a `cancel` or a
 * `steer` while a `prompt` runs).
 */
export async function serveWire(soul: Soul, input: AsyncIterable<Uint8Array | string>, output: WireOutput, options: ServeWireOptions = {}): Promise<void> {
  const server = new WireServer(soul, output, options);
  const stopped = new Promise<void>((resolve) => {
    if (options.signal?.aborted) resolve();
    options.signal?.addEventListener("abort", () => resolve(), { once: true });
  });
  await Promise.race([server.read(input, options.maxLineBytes ?? 100 * 1024 * 1024), stopped]);
  await server.close();
}

class WireServer {
  readonly #soul: Soul;
  readonly #output: WireOutput;
  readonly #serverInfo: { name: string; version: string };
  readonly #log: WireLog | null;
  readonly #tasks = new Set<Promise<void>>();
  /** Approval requests of the running turn sent to the client and not answered yet. */
  readonly #pending = new Set<string>();
  /** Approval requests made while no turn ran, sent to the client and not answered yet (they outlive turns). */
  readonly #idlePending = new Set<string>();
  readonly #unsubscribe: () => void;
  readonly #questions: WireQuestions | null;
  readonly #planMode: { set(enabled: boolean): boolean } | null;
  #turn: AbortController | null = null;
  #replay: { cancelled: boolean } | null = null;
  #closed = false;

  constructor(soul: Soul, output: WireOutput, options: ServeWireOptions) {
    this.#soul = soul;
    this.#output = output;
    this.#serverInfo = options.server ?? { name: soul.agent.name, version: "unknown" };
    this.#log = options.log === undefined ? null : new WireLog(options.log);
    this.#questions = options.onQuestions ? new WireQuestions((message) => this.#sendLogged(message)) : null;
    if (this.#questions) options.onQuestions?.(this.#questions);
    this.#planMode = options.planMode ?? null;
    // A turn's approval events reach the client through the turn; one asked while none runs, through this.
    this.#unsubscribe = soul.approval.subscribe((event) => {
      if (soul.running || this.#closed) return;
      const message = toWireMessage(event);
      if (message === null) return;
      if (event.type === "ApprovalRequest") this.#idlePending.add(event.payload.id);
      else if (!this.#idlePending.delete(event.payload.request_id)) return;
      this.#sendLogged(message);
    });
  }

  #sendLogged(message: WireMessage): void {
    this.#log?.append(message, WIRE_PROTOCOL_VERSION);
    this.#sendMessage(message);
  }

  async read(input: AsyncIterable<Uint8Array | string>, maxLineBytes: number): Promise<void> {
    for await (const item of readLines(input, maxLineBytes)) {
      if (this.#closed) return;
      if (item.kind === "too-long") this.#sendError(null, WireErrorCode.parseError, `Line too long (${item.bytes} bytes)`);
      else this.#handleLine(item.text);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#unsubscribe();
    this.#questions?.close();
    this.#turn?.abort();
    if (this.#replay !== null) this.#replay.cancelled = true;
    while (this.#tasks.size > 0) await Promise.allSettled([...this.#tasks]);
    await this.#log?.close();
  }

  #send(message: object): void {
    this.#output.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  }

  #sendError(id: RpcId | null, code: number, message: string): void {
    this.#send({ id, error: { code, message } });
  }

  /** Sends a wire message as an event or a request (a request's JSON-RPC id is its payload's id, as kimi-cli does). */
  #sendMessage(message: WireMessage): boolean {
    if (wireMessageKind(message) === "event") {
      this.#send({ method: "event", params: message });
      return true;
    }
    const id = message.payload.id;
    if (typeof id !== "string") return false;
    this.#send({ method: "request", id, params: message });
    return true;
  }

  #handleLine(line: string): void {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.#sendError(null, WireErrorCode.parseError, "Invalid JSON format");
      return;
    }
    const parsed = rpcMessageSchema.safeParse(json);
    if (!parsed.success) {
      this.#sendError(null, WireErrorCode.invalidRequest, "Invalid request");
      return;
    }
    const message = parsed.data;
    const id = message.id ?? null;
    if (message.method === undefined) {
      if (id !== null) this.#handleResponse(String(id), message.result, message.error !== undefined);
      return;
    }
    if (!Object.hasOwn(paramSchemas, message.method)) {
      if (id !== null) this.#sendError(id, WireErrorCode.methodNotFound, `Unexpected method received: ${message.method}`);
      return;
    }
    if (id === null) return;
    const method = message.method as WireMethod;
    const params = paramSchemas[method].safeParse(message.params ?? {});
    if (!params.success) {
      this.#sendError(id, WireErrorCode.invalidParams, `Invalid parameters for method \`${method}\``);
      return;
    }
    this.#track(this.#dispatch(id, method, params.data));
  }

  #track(task: Promise<void>): void {
    this.#tasks.add(task);
    void task.finally(() => this.#tasks.delete(task));
  }

  async #dispatch(id: RpcId, method: WireMethod, params: unknown): Promise<void> {
    try {
      this.#send({ id, result: await this.#call(method, params) });
    } catch (error) {
      if (error instanceof RpcFailure) this.#sendError(id, error.code, error.message);
      else this.#sendError(id, WireErrorCode.internalError, `${(error as Error).name}: ${(error as Error).message}`);
    }
  }

  #call(method: WireMethod, params: unknown): Promise<object> | object {
    switch (method) {
      case "initialize":
        return this.#initialize(params as { external_tools?: { name: string }[] | null });
      case "prompt":
        return this.#prompt((params as { user_input: UserInput }).user_input);
      case "steer":
        return this.#steer((params as { user_input: UserInput }).user_input);
      case "replay":
        return this.#replayLog();
      case "cancel":
        return this.#cancel();
      case "set_plan_mode":
        if (!this.#planMode) throw new RpcFailure(WireErrorCode.invalidState, "Plan mode is not supported");
        return { status: "ok", plan_mode: this.#planMode.set((params as { enabled: boolean }).enabled) };
    }
  }

  #initialize(params: { external_tools?: { name: string }[] | null; capabilities?: Record<string, unknown> | null }): object {
    if (this.#busy) throw busy();
    if (this.#questions) this.#questions.supported = params.capabilities?.supports_question === true;
    const requested = params.external_tools ?? [];
    return {
      protocol_version: WIRE_PROTOCOL_VERSION,
      server: this.#serverInfo,
      slash_commands: [],
      capabilities: { supports_question: this.#questions !== null },
      session: { id: this.#soul.session.id, title: null },
      ...(requested.length > 0 && {
        external_tools: { accepted: [], rejected: requested.map((tool) => ({ name: tool.name, reason: "external tools are not supported by this agent" })) },
      }),
    };
  }

  get #busy(): boolean {
    return this.#turn !== null || this.#replay !== null;
  }

  async #prompt(input: UserInput): Promise<object> {
    if (this.#busy) throw busy();
    const controller = new AbortController();
    this.#turn = controller;
    try {
      let turn;
      try {
        turn = this.#soul.run(input, { signal: controller.signal });
      } catch (error) {
        if (EmptyInputError.isInstance(error)) throw new RpcFailure(WireErrorCode.invalidParams, error.message);
        if (SoulBusyError.isInstance(error)) throw busy();
        throw error;
      }
      for await (const event of turn) {
        const message = toWireMessage(event);
        if (message === null) continue;
        this.#log?.append(message, WIRE_PROTOCOL_VERSION);
        if (message.type === "ApprovalRequest") this.#pending.add(String(message.payload.id));
        if (message.type === "ApprovalResponse") this.#pending.delete(String(message.payload.request_id));
        this.#sendMessage(message);
      }
      return promptResult(await turn.result);
    } finally {
      this.#turn = null;
      this.#pending.clear();
    }
  }

  #steer(input: UserInput): object {
    if (this.#turn === null) throw idle();
    try {
      if (!this.#soul.steer(input)) throw idle();
    } catch (error) {
      if (EmptyInputError.isInstance(error)) throw new RpcFailure(WireErrorCode.invalidParams, error.message);
      throw error;
    }
    return { status: "steered" };
  }

  #cancel(): object {
    if (!this.#busy) throw idle();
    this.#turn?.abort();
    if (this.#replay !== null) this.#replay.cancelled = true;
    return {};
  }

  async #replayLog(): Promise<object> {
    if (this.#busy) throw busy();
    const replay = { cancelled: false };
    this.#replay = replay;
    let events = 0;
    let requests = 0;
    try {
      for await (const message of this.#log?.messages() ?? []) {
        if (replay.cancelled) break;
        if (!this.#sendMessage(message)) continue;
        if (wireMessageKind(message) === "event") events++;
        else requests++;
        await new Promise((resolve) => setImmediate(resolve));
      }
      return { status: replay.cancelled ? "cancelled" : "finished", events, requests };
    } finally {
      this.#replay = null;
    }
  }

  /** The client's answer to an approval request (an error or an invalid answer rejects, failing closed). */
  #handleResponse(id: string, result: unknown, isError: boolean): void {
    if (this.#questions?.has(id)) return this.#questions.answer(id, result, isError);
    if (!this.#pending.delete(id) && !this.#idlePending.delete(id)) return;
    const answer = approvalResultSchema.safeParse(result);
    const [kind, feedback] = !isError && answer.success ? [answer.data.response, answer.data.feedback ?? ""] : (["reject", ""] as const);
    try {
      this.#soul.approval.respond(id, kind, feedback);
    } catch {
      // Already answered or cancelled (the turn was aborted meanwhile): nothing waits for this answer.
    }
  }
}

function promptResult(result: TurnResult): object {
  switch (result.stopReason) {
    case "no_tool_calls":
    case "tool_rejected":
      return { status: "finished" };
    case "max_steps":
      return { status: "max_steps_reached", steps: result.steps };
    case "aborted":
      return { status: "cancelled" };
    case "error": {
      const error = result.error ?? new Error("the turn failed");
      const code = ChatProviderError.isInstance(error) ? WireErrorCode.chatProviderError : WireErrorCode.internalError;
      throw new RpcFailure(code, code === WireErrorCode.chatProviderError ? error.message : `${error.name}: ${error.message}`);
    }
  }
}
