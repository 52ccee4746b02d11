/**
 * `Soul`: the stateful owner of an agent's session. It holds the runtime
 * (agent, provider, context, settings, approval, session) and runs one
 * operation at a time: a turn (`run`), a rewrite of the history followed by a
 * turn (`rewrite`), or a compaction (`compact`). The loop itself is plain
 * functions (run-turn.ts, run-step.ts).
 */
import { randomUUID } from "node:crypto";
import type { ChatProvider, Message } from "@kosong/core";
import { FileRegistry, nodeFileReader, type Compaction } from "../compaction/index.js";
import type { Context, ContextCheckpoint } from "../context/index.js";
import { contextBreakdown, type ContextBreakdown, type ContextUsage } from "../tokens/index.js";
import { ContextRecall } from "../recall/context-recall.js";
import { RECALL_NAME } from "../recall/recall-tool.js";
import { DenwaRenji } from "../dmail/denwa-renji.js";
import { SEND_DMAIL_NAME } from "../dmail/send-dmail.js";
import { Approval } from "../approval/approval.js";
import { compactContext, soulContextUsage } from "./compact-context.js";
import { checkpointRange } from "./compaction-range.js";
import { messageKind } from "./message-kind.js";
import { resolveSoulConfig, type SoulConfig, type SoulConfigInput } from "./config.js";
import { claimContext, releaseContext } from "./context-ownership.js";
import { SoulBusyError } from "../errors.js";
import type { SoulEvent, SoulEventOf, UserInput } from "../events/events.js";
import { EventStream } from "../events/event-stream.js";
import { hostCheckpoints, hostHistory } from "./host-history.js";
import { rewrittenTail, type Replacement } from "./rewrite.js";
import { runTurn } from "./run-turn.js";
import type { TurnStart } from "./turn-start.js";
import type { AgentSpec, Emit, SoulRuntime } from "./runtime.js";
import type { SoulSession, SoulSessionOptions } from "../session/session.js";
import { soulCompaction } from "./soul-compaction.js";
import type { CompactionOutcome, SoulStream, Turn } from "./turn.js";
import { userInputMessage } from "./user-input.js";
import "../session/tool-context.js";
import type { SoulHooks } from "../hooks/soul-hooks.js";
import { callHook } from "../hooks/call-hook.js";
import { ObservedEvents, type SoulObserver } from "./event-observer.js";

/** Options of {@link Soul}. */
export interface SoulOptions {
  /** The agent: its name, system prompt and tools. Add `SendDMail` to the tools to enable the model's D-Mail. */
  agent: AgentSpec;
  /** The model. */
  provider: ChatProvider;
  /** The conversation (restore it first when resuming a session). */
  context: Context;
  /** Loop settings (see {@link SoulConfig} for the defaults). */
  config?: SoulConfigInput;
  /**
   * The compaction strategy, used on the trigger, on a context overflow and
   * by `compact()`. Default: kimi-cli's `SimpleCompaction` (an LLM summary
   * by `compactionProvider`), or, with `compactionProvider: null`,
   * `PreserveImportantCompaction` fitting the conversation into half of
   * `maxContextSize` (which must then be known). With null nothing
   * compacts: an overflow ends the turn with an error. Every strategy's
   * output is checked (and repaired, with a note) before it replaces the
   * context.
   */
  compaction?: Compaction | null;
  /**
   * The model compaction strategies summarise with (their `provider`).
   * Default: the agent's `provider`. Another model (a cheaper one) moves the
   * summaries there; null means compaction makes no LLM call: strategies
   * get no provider, and the default strategy needs none.
   */
  compactionProvider?: ChatProvider | null;
  /** The approval state (default: a new `Approval`, asking for everything). */
  approval?: Approval;
  /** The session id, working directory and file registry the tools see. */
  session?: SoulSessionOptions;
  /**
   * Callbacks at the loop's lifecycle points (before and after each tool
   * call, on the user's prompt, when the turn would stop, around each
   * compaction, when an approval is asked and a turn ends). See {@link SoulHooks}.
   */
  hooks?: SoulHooks;
  /**
   * Sees every event of every operation the soul runs (turns, rewrites,
   * compactions; approval events and hook notifications included), in the
   * order they were emitted, whether or not anyone iterates the operation's
   * stream: what a host records beside the conversation (the time of each
   * `CheckpointCreated`, what to undo after a `Reverted`) goes here, once for
   * every way it serves the soul. One call at a time: a returned promise is
   * awaited before the next event is handed over, and the operation's
   * `result` settles (the soul becomes idle) only after the observer has
   * settled for the operation's last event (so it must not wait for
   * {@link Soul.idle}). The operation never waits for it otherwise. What it
   * throws or rejects with is dropped: the turn goes on and the next events
   * are observed (report failures from inside it).
   */
  observer?: SoulObserver;
}

/** Options of an operation. */
export interface RunOptions {
  /** Aborts the operation; a turn then ends with `stopReason: "aborted"`. */
  signal?: AbortSignal;
}

/** Options of {@link Soul.run}. */
export interface TurnOptions extends RunOptions {
  /** A label for the turn's checkpoint, to revert to it by name later (`context.revertTo(label)`). */
  label?: string;
  /**
   * When a turn or a compaction runs, wait until it has ended ({@link Soul.idle})
   * and start then, instead of throwing `SoulBusyError` (default false). Turns
   * waiting this way start one at a time, in no promised order. What `run()`
   * would throw once the soul is idle (`ContextInUseError`) rejects the
   * turn's `result` instead. Abort the running turn first to take over
   * (an HTTP client that reconnects: abort the old request's turn, then
   * run with `waitForIdle`).
   */
  waitForIdle?: boolean;
}

/** What {@link Soul.compact} is asked to do. */
export interface CompactRequest {
  /** The user's instruction for the strategy (`/compact <instruction>`). */
  instruction?: string;
  /** Compact only from this checkpoint id on (range compaction). */
  from?: number;
  /** With `from`: up to this checkpoint id (exclusive); default the end. */
  to?: number;
}

/** Context usage now, as the last `StatusUpdate` would report it. */
export interface SoulStatus {
  contextTokens: number;
  maxContextTokens: number | null;
  /** `contextTokens / maxContextTokens` (0..1), null when the window size is unknown. */
  contextUsage: number | null;
  /**
   * What a status line shows (percent, the auto-compaction threshold under
   * this soul's triggers, tokens left to it, whether it is due); null when
   * the window size is unknown.
   */
  usage: ContextUsage | null;
  /**
   * Where the tokens go: system prompt, project files, tool definitions,
   * messages, tool results, summaries, free and reserve. Worked out when
   * first read, as of the moment the status was read.
   */
  readonly breakdown: ContextBreakdown;
}

/**
 * An agent loop over a checkpointed context.
 *
 * ```ts
 * const soul = new Soul({ agent: { name: "demo", systemPrompt: "You help.", toolset }, provider, context });
 * const turn = soul.run("Add 2 and 3");
 * for await (const event of turn) if (event.type === "TextPart") process.stdout.write(event.payload.text);
 * console.log((await turn.result).stopReason);
 * ```
 */
export class Soul {
  /** Who answers the tools' approval requests: `soul.approval.respond(id, "approve")`, `soul.approval.yolo = true`. */
  readonly approval: Approval;
  /** The session the tools see. */
  readonly session: SoulSession;
  /** The settings in effect. */
  readonly config: SoulConfig;
  readonly #runtime: SoulRuntime;
  #steered: UserInput[] = [];
  #steering = false;
  #current: { kind: "turn" | "compaction"; emit: Emit } | null = null;
  #idleWaiters: Array<() => void> = [];
  readonly #observed: ObservedEvents | null;

  constructor(options: SoulOptions) {
    this.config = resolveSoulConfig(options.config, options.provider);
    this.approval = options.approval ?? new Approval();
    this.#observed = options.observer === undefined ? null : new ObservedEvents(options.observer);
    const { id = randomUUID(), workDir = null, files = new FileRegistry(), fileJournal = options.context.fileJournal } = options.session ?? {};
    const recall = new ContextRecall(options.context);
    this.session = { id, workDir, files, fileJournal, denwaRenji: new DenwaRenji(), recall };
    const effort = this.config.thinkingEffort;
    const provider = effort === null ? options.provider : options.provider.withThinking(effort);
    const compactionProvider = options.compactionProvider === undefined ? provider : options.compactionProvider;
    const warnings = this.config.maxContextSize === null ? [contextWindowUnknown(provider)] : [];
    this.#runtime = {
      agent: options.agent,
      provider,
      context: options.context,
      config: this.config,
      compaction: soulCompaction(options.compaction, compactionProvider, this.config.maxContextSize),
      compactionProvider,
      readFile: options.session?.readFile ?? nodeFileReader(),
      approval: this.approval,
      session: this.session,
      hooks: options.hooks ?? {},
      dmailEnabled: options.agent.toolset.tools.some((tool) => tool.name === SEND_DMAIL_NAME),
      recallEnabled: options.agent.toolset.tools.some((tool) => tool.name === RECALL_NAME),
      takeSteered: () => this.#steered.splice(0),
      takeWarnings: () => warnings.splice(0),
      closeSteering: () => {
        this.#steering = false;
      },
    };
  }

  /** The agent. */
  get agent(): AgentSpec {
    return this.#runtime.agent;
  }

  /** The conversation. */
  get context(): Context {
    return this.#runtime.context;
  }

  /** True while a turn or a compaction runs. */
  get running(): boolean {
    return this.#current !== null;
  }

  /**
   * Resolves once no turn or compaction runs: at once when none does,
   * otherwise when the running one has finished unwinding (after an abort:
   * its tools cancelled, its last writes done), just before its `result`
   * settles. A turn started right after this resolves does not throw
   * `SoulBusyError` (unless another caller started one first; see
   * {@link TurnOptions.waitForIdle} for a run that waits its turn).
   */
  idle(): Promise<void> {
    if (this.#current === null) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Context usage now. Its `breakdown` is worked out when first read (an
   * estimate over the whole history: milliseconds at 10,000 messages, which
   * a status line redrawn at every step does not need), from the history
   * and system prompt as they were when `status` was read.
   */
  get status(): SoulStatus {
    const tokens = this.context.tokenCountWithPending;
    const max = this.config.maxContextSize;
    const usage = soulContextUsage(tokens, this.config);
    const { agent } = this.#runtime;
    const parts = {
      systemPrompt: this.context.systemPrompt ?? agent.systemPrompt,
      ...(agent.projectContext !== undefined && { projectContext: agent.projectContext }),
      tools: agent.toolset.tools,
      history: this.context.history,
      providerTokens: this.context.tokenCount > 0 ? tokens : null,
      window: max,
      reserve: this.config.reservedContextSize,
      threshold: usage?.threshold ?? null,
      kindOf: messageKind,
    };
    let breakdown: ContextBreakdown | undefined;
    return {
      contextTokens: tokens,
      maxContextTokens: max,
      contextUsage: max === null ? null : tokens / max,
      usage,
      get breakdown() {
        return (breakdown ??= contextBreakdown(parts));
      },
    };
  }

  /**
   * Runs a turn: a checkpoint, the user's message, then steps until the
   * model stops calling tools, a tool is rejected without feedback, or
   * `maxStepsPerTurn`.
   * @throws EmptyInputError when `input` has nothing in it.
   * @throws SoulBusyError when a turn or a compaction already runs (unless `waitForIdle`).
   * @throws ContextInUseError when another Soul owns the context (see {@link Soul.release}).
   */
  run(input: UserInput, options: TurnOptions = {}): Turn {
    const message = userInputMessage(input, "run a turn");
    if (options.waitForIdle === true && this.#current !== null) return this.#whenIdle(() => this.run(input, options));
    return this.#turn("run a turn", { kind: "input", input, message, label: options.label }, options.signal);
  }

  /**
   * The conversation as the host sees it: `context.history` without the
   * soul's checkpoint messages (`<system>CHECKPOINT n</system>`, which the
   * model sees when D-Mail is on). {@link rewrite} indexes into this.
   */
  get history(): readonly Message[] {
    return hostHistory(this.context).messages;
  }

  /**
   * The checkpoints as the host sees them, oldest first: `messageCount` counts
   * the messages of {@link history} before each (checkpoint messages are not
   * counted, as in `history` and {@link rewrite}), so
   * `soul.history.slice(0, messageCount)` is what reverting to it keeps.
   * (`context.checkpoints` counts in `context.history`, markers included.)
   */
  get checkpoints(): ContextCheckpoint[] {
    return hostCheckpoints(this.context);
  }

  /**
   * The host's D-Mail: replaces the user message or tool result at
   * `messageIndex` of {@link history} (with a message of the same role, or new
   * content for it), drops everything after it (kept as a rotation, so
   * `context.restoreRotation` undoes it), and runs the loop from there. When
   * the message is one result of a parallel call, the call's other results
   * stay.
   * @throws RewriteTargetError for an index outside {@link history}, an assistant or system message, or a replacement of another role.
   * @throws SoulBusyError when a turn or a compaction already runs.
   * @throws ContextInUseError when another Soul owns the context.
   */
  rewrite(messageIndex: number, replacement: Replacement, options: RunOptions = {}): Turn {
    if (this.#current !== null) throw new SoulBusyError("rewrite the history");
    const { messages, positions } = hostHistory(this.context);
    const tail = rewrittenTail(messages, messageIndex, replacement);
    return this.#turn("rewrite the history", { kind: "rewrite", input: tail[0]!.content, at: positions[messageIndex]!, tail }, options.signal);
  }

  /**
   * Queues input for the running turn: it is appended as a user message
   * after the current step (with a `SteerInput` event), and the turn goes on
   * with it. Returns false, queuing nothing, when no turn runs (or the
   * running one has decided to end). Input queued when an abort or an error
   * ends the turn is dropped.
   * @throws EmptyInputError when `input` has nothing in it.
   */
  steer(input: UserInput): boolean {
    userInputMessage(input, "steer");
    if (!this.#steering) return false;
    this.#steered.push(input);
    return true;
  }

  /**
   * Compacts the context now with the soul's strategy (`instruction` is
   * handed to it), replacing the context through one `clear()` carrying the
   * compacted conversation (a crash leaves the old one or the new one). The stream's
   * `result` rejects with the error when the compaction fails (no strategy,
   * the strategy's call failed, an abort); a strategy that fails leaves the
   * context unchanged.
   *
   * With `{ from, to }` (checkpoint ids; `to` defaults to the end) only the
   * messages from checkpoint `from` up to checkpoint `to` are compacted,
   * the rest stays verbatim (when the strategy keeps that part whole, as a
   * budgeted strategy does with a part under its budget, an extractive
   * summary replaces it).
   *
   * ```ts
   * await soul.compact({ from: 2, to: 5, instruction: "keep the API decisions" }).result;
   * ```
   * @throws SoulBusyError when a turn or a compaction already runs.
   * @throws ContextInUseError when another Soul owns the context.
   * @throws CheckpointNotFoundError for a `from` or `to` that is not a checkpoint; SoulError for an empty range.
   */
  compact(request?: string | CompactRequest, options: RunOptions = {}): SoulStream<CompactionOutcome> {
    const { instruction, from, to } = typeof request === "object" ? request : { instruction: request, from: undefined, to: undefined };
    if (this.#current !== null) throw new SoulBusyError("compact");
    const range = from === undefined ? undefined : checkpointRange(this.context, to === undefined ? { from } : { from, to });
    return this.#operate("compact", "compaction", (emit) =>
      compactContext(this.#runtime, emit, { reason: "manual", step: 0, instruction, signal: options.signal, ...(range && { range }) }),
    );
  }

  #turn(what: string, start: TurnStart, signal?: AbortSignal): Turn {
    return this.#operate(what, "turn", (emit) => runTurn(this.#runtime, emit, start, signal));
  }

  /**
   * Gives up the context: a Context belongs to the first Soul that runs an
   * operation on it (a turn, a rewrite, a compaction), and another Soul's
   * operations on it throw `ContextInUseError` until this one releases it
   * (to continue the conversation with another model or settings, say).
   * This soul takes the context back on its next operation if it is free.
   * @throws SoulBusyError when a turn or a compaction runs.
   */
  release(): void {
    if (this.#current !== null) throw new SoulBusyError("release the context");
    releaseContext(this.context, this);
  }

  /** A stream that starts once the soul is idle (waiting again when another operation got there first) and relays the operation's events and result. */
  #whenIdle<R>(start: () => SoulStream<R>): SoulStream<R> {
    const stream = new EventStream<SoulEvent, R>();
    const relay = async (): Promise<void> => {
      await this.idle();
      const operation = start();
      for await (const event of operation) stream.push(event);
      stream.end(await operation.result);
    };
    relay().catch((error: unknown) => stream.fail(error));
    return stream;
  }

  #operate<R>(what: string, kind: "turn" | "compaction", body: (emit: Emit) => Promise<R>): SoulStream<R> {
    if (this.#current !== null) throw new SoulBusyError(what);
    claimContext(this.context, this, what);
    const stream = new EventStream<SoulEvent, R>();
    const observed = this.#observed;
    const emit = (event: SoulEvent): void => {
      stream.push(event);
      observed?.push(event);
    };
    const current = { kind, emit };
    this.#current = current;
    this.#steering = kind === "turn";
    // Approval events reach the running operation only (no listener outlives it, even with a shared Approval).
    const unsubscribe = this.approval.subscribe((event) => {
      current.emit(event);
      if (event.type !== "ApprovalRequest") return;
      const message = `${event.payload.sender} needs approval: ${event.payload.description}`;
      void callHook("Notification", this.#runtime.hooks.notification?.bind(this.#runtime.hooks), { kind: "approval_needed", message }, current.emit);
    });
    const settle = (): void => {
      unsubscribe();
      this.#current = null;
      this.#steering = false;
      this.#steered = [];
      for (const resolve of this.#idleWaiters.splice(0)) resolve();
    };
    // The observer has seen the operation's last event before its result settles.
    const finish = (end: () => void): void => {
      const done = (): void => {
        settle();
        end();
      };
      if (observed === null) done();
      else void observed.drained().then(done);
    };
    body(current.emit).then(
      (result) => finish(() => stream.end(result)),
      (error: unknown) => finish(() => stream.fail(error)),
    );
    return stream;
  }
}

function contextWindowUnknown(provider: ChatProvider): SoulEventOf<"Warning">["payload"] {
  return {
    code: "context_window_unknown",
    message:
      `The context window of ${provider.name} model ${provider.modelName} is unknown, so the context is compacted only ` +
      "after the provider rejects a request as too long: set config.maxContextSize (or the provider's maxContextSize).",
  };
}
