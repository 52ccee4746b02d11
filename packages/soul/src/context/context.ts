/**
 * The checkpointed conversation context of an agent, kimi-cli's `Context`
 * on the record-log contract of @kosong/context: a `context.jsonl` file
 * (kimi-cli's format, byte for byte), memory, or any other `ContextLog`.
 *
 * The history, token count, system prompt and checkpoints live in memory,
 * and change only after the log has taken the write. Every write is one
 * call: {@link Context.commit} takes a whole step of the loop (checkpoint,
 * token count, messages) as one append, so a step costs one fsync; the
 * whole-log operations (revert, clear, restored rotation) carry what follows
 * them in the same replacement. Operations run one at a time, in call order.
 */
import { extractText, parseMessage, serializeMessage, type Message } from "@kosong/core";
import {
  JsonlContextFile,
  MAX_NOTE_PROMPT,
  StorageAlreadyModifiedError,
  StorageClosedError,
  type ContextFileOptions,
  type ContextLog,
  type ContextLogState,
  type LogReadOptions,
  type LogRotation,
  type LogRotationInfo,
  type LogRotationRestore,
  type RestoreReport,
  type RotationNote,
} from "@kosong/context";
import { messageRecord, systemPromptRecord } from "@kosong/context/records";
import type { ContextJournal, FileRecoveryReport, FileRestoreReport, InterruptedCommandReport, RestoreKind, RestoreTarget, SessionJournal } from "@kosong/workspace";
import { cutCommandMessages } from "./interrupted-tool-result.js";
import { branchTree, type ContextBranch } from "./branch-tree.js";
import { isUserTyped } from "./is-user-typed.js";
import { CheckpointNotFoundError } from "./checkpoint-not-found-error.js";
import {
  applyStep,
  EMPTY_BASE,
  fingerprintOf,
  INITIAL_STATE,
  planStep,
  stateAt,
  stateOfLog,
  withMessages,
  withPromptPrepended,
  withResultsInserted,
  type Base,
  type ContextState,
  type Mark,
  type PlannedStep,
} from "./context-state.js";
import { estimateTextTokens } from "./estimate-text-tokens.js";
import { findUnansweredToolCalls } from "./unanswered-tool-calls.js";

/** Options of a {@link Context}. */
export interface ContextOptions<J extends ContextJournal = SessionJournal> {
  /** How a `context.jsonl` path is opened (durability, ...); unused when a log is given. */
  file?: ContextFileOptions;
  /**
   * Estimates the tokens of messages appended after the last token count
   * (see {@link Context.tokenCountWithPending}). Default: kimi-cli's
   * {@link estimateTextTokens}, text characters / 4.
   */
  estimateTokens?: (messages: readonly Message[]) => number;
  /**
   * The journal of the workspace files the agent changes (a `FileJournal`
   * of `@kosong/workspace`), driven through its `ContextJournal` face only:
   * checkpoints are marked in it, and every revert ({@link Context.revertTo},
   * {@link Context.restoreRotation}, a D-Mail, a rewrite) restores the files
   * with the conversation. Default: none (only the conversation is reverted).
   */
  fileJournal?: J;
  /**
   * Told how far reading the log got when the context is restored (for a
   * `context.jsonl`: bytes read and the file's size), so that a host can
   * show progress while a long conversation opens. Logs that cannot tell
   * (memory, PostgreSQL) never call it.
   */
  onRestoreProgress?: (done: number, total: number) => void;
}

/** A checkpoint of the context: reverting to it restores the first `messageCount` messages. */
export interface ContextCheckpoint {
  id: number;
  label?: string;
  /**
   * Messages before the checkpoint, in this context's `history` (visible
   * checkpoint messages included). `soul.checkpoints` gives the same count
   * in `soul.history`, which has no checkpoint messages.
   */
  messageCount: number;
}

/** Options of {@link Context.checkpoint}. */
export interface CheckpointOptions {
  /**
   * Also append the visible user message `<system>CHECKPOINT n</system>`, so
   * the model knows the checkpoint (kimi-cli does this when D-Mail is on).
   */
  addUserMessage?: boolean;
  /** A name to revert to; stored as an extra key of the `_checkpoint` record, which kimi-cli ignores. */
  label?: string;
}

/** A tool call that had no result when the context was read, now answered as interrupted. */
export interface InterruptedToolCall {
  toolCallId: string;
  /**
   * True when its result was appended to the log (the call was at the end of
   * the history); false when the result is only in memory, inserted right
   * after the call, because the history goes on after it and a record
   * appended at the end would not answer it. A later restore inserts the
   * same result again.
   */
  appended: boolean;
}

/** What {@link Context.restore} read, and what it repaired. */
export interface ContextRestoreReport extends RestoreReport {
  /** Tool calls without a result (a crash between a call and its result), each answered as interrupted. */
  interruptedToolCalls: InterruptedToolCall[];
  /**
   * What the file journal finished after a crash: a file restore the crash
   * interrupted (completed or rolled back), and a Shell command it cut (the
   * files it created, which a revert deletes, and those it changed, which a
   * revert cannot restore); null when neither (or no file journal).
   */
  fileRecovery: FileRecoveryReport | null;
}

/**
 * What a revert or a clear writes right after it, in the same log step: a
 * crash leaves the context as it was before the call, or reverted (or
 * cleared) with all of this, never reverted without it. A D-Mail is a
 * revert then a checkpoint and the D-Mail message; a compaction is a clear
 * then the system prompt, a checkpoint and the compacted messages.
 */
export interface ContextContinuation {
  /** A checkpoint made first, with the next id, as {@link Context.checkpoint} makes it (`true`: without options). */
  checkpoint?: true | CheckpointOptions;
  /** Messages appended after it (and after its visible message), as one batch. */
  messages?: readonly Message[];
}

/**
 * One step of the loop, as {@link Context.commit} writes it: one append (one
 * write and one fsync on a `context.jsonl`), in this order: the checkpoint
 * and its visible message, the token count, the messages. The log holds the
 * same bytes as {@link Context.checkpoint}, {@link Context.updateTokenCount}
 * and {@link Context.appendMessage} called one after another.
 */
export interface ContextStep extends ContextContinuation {
  /** The token count the provider reported for the request that sent the history up to here (checkpoint included). */
  tokenCount?: number;
}

/** What {@link Context.commit} made. */
export interface ContextCommit {
  /** The checkpoint the step asked for. */
  checkpoint?: ContextCheckpoint;
}

/** What {@link Context.clear} writes into the empty context, in the same step. */
export interface ClearContinuation extends ContextContinuation {
  /** The system prompt, the first record (as {@link Context.writeSystemPrompt} writes it into an empty log). */
  systemPrompt?: string;
  /**
   * Labels that keep resolving after the clear (a compaction passes those of
   * the checkpoints it removes): each becomes a checkpoint of its own, with
   * no visible message, after `messages`, so the cleared context starts
   * with them. Reverting to one of them goes back to that start: the
   * context as the clear wrote it (for a compaction, the compacted
   * conversation), without what came after.
   */
  labels?: readonly string[];
}

/** Options of {@link Context.revertTo}. */
export interface RevertOptions {
  /** Written after the revert in the same step. */
  then?: ContextContinuation;
  /** Restore files changed outside the agent too (with a file journal); by default they are left alone and reported as conflicts. */
  force?: boolean;
  /** What the revert is, as the branch it leaves shows it in {@link Context.branches} (default `"revert"`; the soul passes `"dmail"` and `"rewrite"`). */
  kind?: string;
}

/** Options of {@link Context.addBranch}. */
export interface AddBranchOptions {
  /** What the branch is, as {@link Context.branches} shows it (default `"btw"`). */
  kind?: string;
}

/** Options of {@link Context.restoreRotation}. */
export interface RestoreRotationOptions {
  /** As {@link RevertOptions.force}. */
  force?: boolean;
}

/** The outcome of {@link Context.restoreRotation}. */
export interface ContextRotationRestore extends LogRotationRestore {
  /** What happened to the workspace files, with a file journal. */
  files?: FileRestoreReport;
}

/** Options of {@link Context.clear}. */
export interface ClearOptions {
  /** Written into the cleared context in the same step. */
  then?: ClearContinuation;
  /**
   * The id of the cleared context's first checkpoint (default 0). A
   * compaction passes the old {@link Context.nCheckpoints}, so an id seen
   * before the clear never names another point after it: it is gone
   * (reverting to it is a `CheckpointNotFoundError`).
   */
  firstCheckpointId?: number;
  /** What the clear is, as the branch it leaves shows it in {@link Context.branches} (default `"clear"`; a compaction passes `"compaction"`). */
  kind?: string;
}

/** The outcome of {@link Context.revertTo}. */
export interface ContextRevert {
  /** The checkpoint reverted to; it and everything after it are gone from the context. */
  checkpoint: ContextCheckpoint;
  /** Where the whole log before the revert was kept. */
  rotation: LogRotation;
  /** The checkpoint `then.checkpoint` made, when it asked for one. */
  newCheckpoint?: ContextCheckpoint;
  /** What happened to the workspace files, with a file journal: restored to their state at the checkpoint. */
  files?: FileRestoreReport;
}

/** The outcome of {@link Context.clear}: where the whole log before it was kept. */
export interface ContextClear extends LogRotation {
  /** The checkpoint `then.checkpoint` made, when it asked for one. */
  newCheckpoint?: ContextCheckpoint;
}

function publicCheckpoint(mark: Omit<Mark, "position">): ContextCheckpoint {
  return mark.label === undefined
    ? { id: mark.id, messageCount: mark.messageCount }
    : { id: mark.id, label: mark.label, messageCount: mark.messageCount };
}

/** What marking a checkpoint that needs no journal call resolves to. */
const MARKED: Promise<void> = Promise.resolve();

/** Reads the history a context's next request sends (set by the class's static block). */
let readRequestHistory: (context: Context<ContextJournal>) => readonly Message[];

/**
 * The conversation as the loop's next request sends it: the context's own
 * array, not a snapshot. The context appends the step's messages to it once
 * the log has taken them, so it is lent to the request only (a provider
 * that keeps a history copies it, as the test providers do); a caller that
 * keeps one reads {@link Context.history}. The loop asks at every step, and
 * this makes no copy of the conversation. Package-internal: not exported
 * from @kosong/soul.
 */
export function requestHistory(context: Context<ContextJournal>): readonly Message[] {
  return readRequestHistory(context);
}

/** Reads the id of a context's oldest checkpoint (set by the class's static block). */
let readOldestCheckpoint: (context: Context<ContextJournal>) => number | null;

/**
 * The id of the oldest checkpoint `context` can revert to, null without
 * one: what `context.checkpoints[0]?.id` gives, without copying every
 * checkpoint (the loop asks at every step). Package-internal: not
 * exported from @kosong/soul.
 */
export function oldestCheckpointId(context: Context<ContextJournal>): number | null {
  return readOldestCheckpoint(context);
}

/**
 * kimi-cli's checkpointed context (`soul/context.py`), on a {@link ContextLog}.
 *
 * Crash safety: a revert or a clear and what its `then` writes after it (a
 * D-Mail's checkpoint and message, a compaction's system prompt,
 * checkpoint and messages) are one replacement of the log, so a crash
 * leaves the context wholly before or wholly after them; the old log is
 * kept as a rotation either way.
 *
 * Durability: what an operation writes is durable when it resolves, and
 * memory changes only after that, so a failed write changes nothing and a
 * restore after a crash gives the context as some resolved operation left
 * it. Each operation is one write of the log: to make a checkpoint, a token
 * count and messages one fsync, pass them to {@link commit} together, as the
 * loop does for each step.
 *
 * ```ts
 * const context = new Context("/sessions/abc/context.jsonl");
 * await context.restore();
 * await context.commit({ checkpoint: true, messages: [userMessage("Hello")] });
 * await context.revertTo(0); // the old file is kept as context_1.jsonl
 * await context.close();
 * ```
 */
export class Context<J extends ContextJournal = SessionJournal> implements AsyncDisposable {
  readonly #estimate: (messages: readonly Message[]) => number;
  readonly #open: () => Promise<ContextLog>;
  readonly #location: string;
  readonly #journal: J | null;
  /** How the first read of the log reports its progress. */
  readonly #openRead: LogReadOptions;
  /** The checkpoint {@link markNextCheckpoint} marked in the journal ahead of its write, until it is written (or the log is replaced). */
  #markedAhead: number | null = null;
  /** What the file journal's recovery found, once it ran (on the first read of the log). */
  #fileRecovery: FileRecoveryReport | null | undefined;
  #log: Promise<ContextLog> | null = null;
  #queue: Promise<unknown> = Promise.resolve();
  #loaded = false;
  #closed = false;
  /** Everything the context knows (context-state.ts), replaced whole once the log has taken an operation's write. */
  #state: ContextState = INITIAL_STATE;
  /**
   * The last snapshot {@link history} made, and the state's history it copies
   * (an append-only array while it is the current state's, so the same
   * array of the same length means the same messages).
   */
  #snapshot: { of: readonly Message[]; copy: readonly Message[] } | null = null;

  static {
    readOldestCheckpoint = (context) => context.#state.marks[0]?.id ?? null;
    readRequestHistory = (context) => context.#state.history;
  }

  /**
   * @param pathOrLog a `context.jsonl` path, opened as a `JsonlContextFile`
   *   (kimi-cli's format; rotations beside it as `context_N.jsonl`) on first
   *   use, or any open {@link ContextLog}. The context owns the log:
   *   {@link close} closes it.
   */
  constructor(pathOrLog: string | ContextLog, options: ContextOptions<J> = {}) {
    this.#estimate = options.estimateTokens ?? estimateTextTokens;
    this.#journal = options.fileJournal ?? null;
    this.#openRead = options.onRestoreProgress === undefined ? {} : { onProgress: options.onRestoreProgress };
    if (typeof pathOrLog === "string") {
      this.#location = pathOrLog;
      this.#open = () => JsonlContextFile.open(pathOrLog, options.file);
    } else {
      this.#location = pathOrLog.location;
      this.#open = () => Promise.resolve(pathOrLog);
    }
  }

  /** The file journal given in the options, null without one. */
  get fileJournal(): J | null {
    return this.#journal;
  }

  /** Where the log lives: the file path, or the log's name. */
  get location(): string {
    return this.#location;
  }

  /**
   * The conversation, oldest first, as a snapshot: an array a caller got
   * never changes, whatever the context does next. It is made (one copy of
   * the conversation) on the first read after the conversation changed;
   * reading it again before the next change gives the same array and costs
   * nothing. Do not change it.
   */
  get history(): readonly Message[] {
    const live = this.#state.history;
    const made = this.#snapshot;
    if (made !== null && made.of === live && made.copy.length === live.length) return made.copy;
    const copy = live.slice();
    this.#snapshot = { of: live, copy };
    return copy;
  }

  /**
   * How many messages the conversation holds: `history.length`, without
   * making the snapshot {@link history} makes after each change (an
   * observer of every step asks for it, see {@link findCheckpoint}).
   */
  get historyLength(): number {
    return this.#state.history.length;
  }

  /** The last token count reported with {@link updateTokenCount} (0 without one). */
  get tokenCount(): number {
    return this.#state.tokenCount;
  }

  /** How many of the first messages of {@link history} the call that reported {@link tokenCount} sent (0 without a count). */
  get tokenCountMessages(): number {
    return this.#state.usageAt;
  }

  /** {@link tokenCount} plus the estimated tokens of the messages appended after it. */
  get tokenCountWithPending(): number {
    return this.#state.tokenCount + this.#state.pending;
  }

  /** The id the next checkpoint gets: the last checkpoint's id + 1 (kimi-cli's `n_checkpoints`). */
  get nCheckpoints(): number {
    return this.#state.nextCheckpointId;
  }

  /** The checkpoints that can be reverted to, oldest first. */
  get checkpoints(): ContextCheckpoint[] {
    return this.#state.marks.map(publicCheckpoint);
  }

  /**
   * The checkpoint of id `id` among {@link checkpoints}, null when there is
   * none; looked up from the newest without listing them all, so what an
   * observer of each step's checkpoint pays does not grow with the session.
   * A null is known only once every checkpoint was looked at: a step's
   * checkpoint, announced before the step writes it, is not among them yet
   * (it has id {@link nCheckpoints} until then, and
   * {@link historyLength} messages before it).
   */
  findCheckpoint(id: number): ContextCheckpoint | null {
    const mark = this.#state.marks.findLast((m) => m.id === id);
    return mark === undefined ? null : publicCheckpoint(mark);
  }

  /**
   * The system prompt stored in the log, null without one. A stored prompt
   * wins over the agent's (as in kimi-cli): a session keeps the prompt it
   * started with.
   */
  get systemPrompt(): string | null {
    return this.#state.systemPrompt;
  }

  /**
   * Reads the log into the context; call it once, before anything else (the
   * other operations restore first if it was not called). A tool call left
   * without a result (a crash between the call and its result) gets the
   * interrupted result (`interruptedToolMessage`), so every request made
   * from the history is valid: appended to the log when the call ends the
   * history, otherwise inserted in memory only (see
   * {@link InterruptedToolCall}). The log is never rewritten.
   *
   * @throws StorageAlreadyModifiedError when the context was already restored or changed.
   */
  restore(): Promise<ContextRestoreReport> {
    return this.#run(async (log) => {
      if (this.#loaded) throw new StorageAlreadyModifiedError("the context was already restored or changed: restore() runs once, first");
      return this.#load(log, await log.read(this.#openRead));
    });
  }

  /**
   * Stores the system prompt. In a log without records it is the first
   * record; in one without a stored prompt (a session started without one)
   * it is written before everything else, as kimi-cli does; when a prompt is
   * already stored the new one is appended and holds from here on (reverting
   * to an earlier checkpoint brings the old one back). The prompt stored
   * already is not written again: a host may store it ahead of the first
   * turn (while its user types), and the turn then finds it there.
   */
  writeSystemPrompt(prompt: string): Promise<void> {
    return this.#change(async (log) => {
      const record = systemPromptRecord(prompt);
      const state = this.#state;
      if (state.systemPrompt === prompt) return;
      if (state.empty || state.systemPrompt !== null) {
        await log.append([record]);
        this.#state = { ...state, systemPrompt: prompt, empty: false };
      } else {
        const { shift } = await log.prepend([record]);
        this.#state = withPromptPrepended(state, prompt, shift);
      }
    });
  }

  /**
   * Writes one step of the loop as one append: the checkpoint (with the next
   * id) and its visible message, the token count, then the messages (see
   * {@link ContextStep}). Memory changes once the log has taken it.
   *
   * ```ts
   * // A step: its checkpoint, the provider's count, the assistant's message and the tool results, one fsync.
   * await context.commit({ checkpoint: true, tokenCount: 1234, messages: [assistant, ...toolResults] });
   * ```
   *
   * @throws `MessageParseError` or `InvalidRecordError` for an invalid message, label or token count; the log's error when the write fails; nothing is changed either way.
   */
  commit(step: ContextStep): Promise<ContextCommit> {
    return this.#change(async (log) => {
      const state = this.#state;
      const planned = planStep(state.history, this.#base(), step);
      if (planned.records.length === 0) return {};
      // A commit's checkpoint is its first record: where the append starts.
      const { position } = await log.append(planned.records);
      this.#state = applyStep(state, planned, [position], this.#estimate);
      if (planned.first === null) return {};
      await this.#markCheckpoint(planned.first.id);
      return { checkpoint: publicCheckpoint(planned.first) };
    });
  }

  /** Appends one message or a batch of messages, in one append (a batch is never torn apart): {@link commit} with `messages`. */
  async appendMessage(message: Message | readonly Message[]): Promise<void> {
    await this.commit({ messages: isMessageList(message) ? message : [message] });
  }

  /** Records the context's token count as the provider reported it (a `_usage` record): {@link commit} with `tokenCount`. */
  async updateTokenCount(tokenCount: number): Promise<void> {
    await this.commit({ tokenCount });
  }

  /**
   * Makes a checkpoint with the next id (ids count up from 0, and are used
   * again after a revert, as in kimi-cli), written at once, and returns it:
   * {@link commit} with `checkpoint`.
   */
  async checkpoint(options: CheckpointOptions = {}): Promise<ContextCheckpoint> {
    return (await this.commit({ checkpoint: options })).checkpoint!;
  }

  /**
   * Marks the next checkpoint (id {@link nCheckpoints}) in the file journal
   * now, ahead of the write that makes it: the files changed from here on
   * come after it, so a revert to it undoes them (the loop marks a step's
   * checkpoint before its tools run, and writes it with the step). The
   * write that makes it does not mark it again. Returns its id; without a
   * file journal it only returns the id.
   */
  markNextCheckpoint(): Promise<number> {
    return this.#change(async () => {
      const id = this.#state.nextCheckpointId;
      await this.#markCheckpoint(id);
      this.#markedAhead = id;
      return id;
    });
  }

  /**
   * Marks checkpoint `id` in the file journal, unless {@link markNextCheckpoint} marked it already: the one place a checkpoint is marked.
   * Not an async function: without a journal (or marked ahead) it makes no promise of its own, twice a step.
   */
  #markCheckpoint(id: number): Promise<void> {
    const ahead = this.#markedAhead;
    this.#markedAhead = null;
    return (ahead === id ? undefined : this.#journal?.markCheckpoint(id)) ?? MARKED;
  }

  /**
   * Reverts to a checkpoint, by id or by label (a label names its most
   * recent checkpoint): that checkpoint and everything after it are removed,
   * and the whole log before the revert is kept as a rotation
   * ({@link restoreRotation} undoes the revert). The next checkpoint takes
   * the reverted one's id again. Tool calls that the kept history leaves
   * without a result are answered as interrupted (as in {@link restore}).
   *
   * `then` is written in the same log step (one crash-safe replacement of
   * the log, see {@link ContextContinuation}): a new checkpoint, then
   * messages. The file holds the same bytes as a revert followed by
   * {@link checkpoint} and {@link appendMessage}.
   *
   * ```ts
   * // A D-Mail: back to checkpoint 3, a fresh checkpoint, the message, as one step.
   * await context.revertTo(3, { then: { checkpoint: { addUserMessage: true }, messages: [dmail] } });
   * ```
   *
   * @throws CheckpointNotFoundError naming the checkpoints that exist;
   *   `MessageParseError` or `InvalidRecordError` for an invalid message or
   *   label in `then`; nothing is changed.
   */
  revertTo(idOrLabel: number | string, options: RevertOptions = {}): Promise<ContextRevert> {
    return this.#change(async (log) => {
      const index = this.#findMark(idOrLabel);
      const mark = this.#state.marks[index]!;
      const note = this.#noteOf(options.kind ?? "revert", mark.id, mark.messageCount, this.#state.history);
      const { result, files } = await this.#withFiles(log, "revert", { checkpoint: mark.id }, options.force, async () => {
        const truncated = await this.#truncate(log, mark, index, options.then ?? {});
        return { result: truncated, rotation: truncated.rotation.n };
      });
      const { rotation, newCheckpoint } = result;
      await this.#annotate(log, rotation.n, note);
      if (newCheckpoint) await this.#markCheckpoint(newCheckpoint.id);
      return { checkpoint: publicCheckpoint(mark), rotation, ...(newCheckpoint && { newCheckpoint }), ...(files && { files }) };
    });
  }

  /**
   * Empties the context (kimi-cli's `clear`): the whole log is kept as a
   * rotation and the current log starts empty, without a system prompt.
   * `then` is written into it in the same log step (see
   * {@link ContextContinuation}): the system prompt, a checkpoint, messages,
   * the same bytes as a clear followed by {@link writeSystemPrompt},
   * {@link checkpoint} and {@link appendMessage}.
   *
   * ```ts
   * // A compaction: the old conversation becomes a rotation, the compacted one replaces it, as one step.
   * await context.clear({ then: { systemPrompt, checkpoint: true, messages: compacted } });
   * ```
   *
   * @throws `MessageParseError` or `InvalidRecordError` for an invalid message or label in `then`; nothing is changed.
   */
  clear(options: ClearOptions = {}): Promise<ContextClear> {
    const first = options.firstCheckpointId ?? 0;
    if (!(Number.isInteger(first) && first >= 0)) return Promise.reject(new RangeError(`clear: firstCheckpointId must be a non-negative integer, got ${first}.`));
    return this.#change(async (log) => {
      const base = first === 0 ? EMPTY_BASE : { ...EMPTY_BASE, nextCheckpointId: first };
      const note = this.#noteOf(options.kind ?? "clear", null, 0, this.#state.history);
      const { result } = await this.#withFiles(log, "clear", null, false, async () => {
        const truncated = await this.#truncate(log, base, 0, options.then ?? {});
        return { result: truncated, rotation: truncated.rotation.n };
      });
      const { rotation, newCheckpoint } = result;
      await this.#annotate(log, rotation.n, note);
      if (newCheckpoint) await this.#markCheckpoint(newCheckpoint.id);
      return { ...rotation, ...(newCheckpoint && { newCheckpoint }) };
    });
  }

  /** The rotations of the log (earlier versions kept by reverts, clears and compactions), oldest first. */
  rotations(): Promise<LogRotationInfo[]> {
    return this.#run((log) => log.listRotations());
  }

  /**
   * Reads rotation `n` (an earlier version of the log: what a compaction, a
   * revert or a clear replaced) without changing anything: its messages,
   * checkpoints and system prompt as the log folds them.
   * @throws RotationNotFoundError (from @kosong/context) for an unknown `n`.
   */
  readRotation(n: number): Promise<ContextLogState> {
    return this.#run((log) => log.readRotation(n));
  }

  /**
   * The branch tree of the conversation: the current branch (the root),
   * then every rotation as a branch, with the branch it left, the
   * checkpoint where it left it, what made it, its first prompt, size and
   * time. Reverts, D-Mails, rewrites, clears, compactions, restores and
   * {@link addBranch} store a note with the rotation they make, so this
   * reads the notes and no rotation: it stays cheap with 1,000 branches.
   * {@link restoreRotation} jumps to a branch (keeping the current one).
   *
   * ```ts
   * for (const b of await context.branches()) console.log(b.rotation ?? "current", "from", b.parent, "at checkpoint", b.checkpoint, b.firstPrompt);
   * ```
   */
  branches(): Promise<ContextBranch[]> {
    return this.#change(async (log) =>
      branchTree(await log.listRotations(), { location: this.#location, messages: this.#state.history.length, firstPrompt: firstPrompt(this.#state.history) }),
    );
  }

  /**
   * Keeps the current conversation followed by `messages` as a new branch
   * (a rotation), leaving the current conversation as it is, byte for byte:
   * a side question and its answer, kept. {@link restoreRotation} with the
   * returned number makes it current.
   *
   * @throws `MessageParseError` for an invalid message; nothing is made.
   */
  addBranch(messages: readonly Message[], options: AddBranchOptions = {}): Promise<LogRotation> {
    return this.#change(async (log) => {
      const copies = messages.map((m) => parseMessage(m));
      const rotation = await log.addRotation(copies.map(messageRecord));
      const at = this.#state.marks.at(-1)?.id ?? null;
      await this.#annotate(log, rotation.n, this.#noteOf(options.kind ?? "btw", at, this.#state.history.length, [...this.#state.history, ...copies]));
      return rotation;
    });
  }

  /**
   * Makes rotation `n` the current log again and reads it (undoing a revert,
   * a clear or a compaction); the replaced log is kept as the next rotation.
   * Unanswered tool calls are answered as in {@link restore}.
   *
   * @throws RotationNotFoundError (from @kosong/context) for an unknown `n`; nothing is changed.
   */
  restoreRotation(n: number, options: RestoreRotationOptions = {}): Promise<ContextRotationRestore> {
    return this.#run(async (log) => {
      if (!this.#loaded) await this.#load(log, await log.read());
      const [left, leftMarks] = [this.#state.history, this.#state.marks];
      const { result, files } = await this.#withFiles(log, "rotation", { rotation: n }, options.force, async () => {
        const restored = await log.restoreRotation(n);
        return { result: restored, rotation: restored.savedAs?.n ?? null };
      });
      await this.#load(log, await log.read());
      if (result.savedAs !== null) {
        // The replaced conversation leaves the restored one where they stop agreeing.
        const shared = sharedPrefix(left, this.#state.history);
        const at = leftMarks.findLast((m) => m.messageCount <= shared)?.id ?? null;
        await this.#annotate(log, result.savedAs.n, this.#noteOf("restore", at, shared, left));
      }
      return files ? { ...result, files } : result;
    });
  }

  /**
   * Runs `step` (a change of the whole log) between the file journal's
   * beginning of a restore and its end: the restore is recorded first, the
   * files are restored once the log has taken the step.
   */
  async #withFiles<T>(
    log: ContextLog,
    kind: RestoreKind,
    target: RestoreTarget,
    force: boolean | undefined,
    step: () => Promise<{ result: T; rotation: number | null }>,
  ): Promise<{ result: T; files?: FileRestoreReport }> {
    const journal = this.#journal;
    if (journal === null) return { result: (await step()).result };
    this.#markedAhead = null;
    const pending = await journal.beginRestore(kind, target, fingerprintOf(this.#state), force);
    let done: { result: T; rotation: number | null };
    try {
      done = await step();
    } catch (error) {
      await journal.abortRestore(pending);
      throw error;
    }
    const files = await journal.finishRestore(pending, done.rotation);
    return kind === "clear" ? { result: done.result } : { result: done.result, files };
  }

  /** The note of a rotation holding `messages`, which leaves the current log at checkpoint `checkpoint` after `shared` messages. */
  #noteOf(kind: string, checkpoint: number | null, shared: number, messages: readonly Message[]): RotationNote {
    return { kind, checkpoint, sharedMessages: shared, messages: messages.length, firstPrompt: firstPrompt(messages.slice(shared)) };
  }

  /**
   * Stores a rotation's note. The whole-log operation is done and durable
   * by then: a failed note (a full disk) only leaves the rotation listed as
   * an `"unknown"` branch, so it does not fail the operation.
   */
  async #annotate(log: ContextLog, n: number, note: RotationNote): Promise<void> {
    await log.annotateRotation(n, note).catch(() => undefined);
  }

  /** Closes the log, after the operations already called. Idempotent; every other method then rejects. */
  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#queue = this.#queue
        .catch(() => undefined)
        .then(async () => {
          if (this.#log !== null) await (await this.#log).close();
        });
    }
    return this.#queue.then(() => undefined);
  }

  /** {@link close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * Runs `op` after every earlier operation (whether it succeeded or not),
   * on the opened log.
   */
  #run<T>(op: (log: ContextLog) => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new StorageClosedError(`the context ${this.#location} is closed`));
    const go = (): Promise<T> => this.#connect().then(op);
    const next = this.#queue.then(go, go);
    this.#queue = next;
    return next;
  }

  /** Like {@link #run}, restoring the log first if that has not happened. */
  #change<T>(op: (log: ContextLog) => Promise<T>): Promise<T> {
    return this.#run((log) => (this.#loaded ? op(log) : this.#loadThen(log, op)));
  }

  /** Restores the log into the context, then runs `op`. */
  async #loadThen<T>(log: ContextLog, op: (log: ContextLog) => Promise<T>): Promise<T> {
    await this.#load(log, await log.read(this.#openRead));
    return op(log);
  }

  /** The log, opened on first use (a failed open is tried again by the next operation). */
  async #connect(): Promise<ContextLog> {
    this.#log ??= this.#open();
    try {
      return await this.#log;
    } catch (error) {
      this.#log = null;
      throw error;
    }
  }

  async #load(log: ContextLog, read: ContextLogState): Promise<ContextRestoreReport> {
    this.#loaded = true;
    this.#markedAhead = null;
    const interruptedToolCalls = await this.#answerUnfinishedCalls(log, stateOfLog(read, this.#estimate));
    if (this.#fileRecovery === undefined) {
      this.#fileRecovery = this.#journal === null ? null : await this.#journal.recover(fingerprintOf(this.#state), (await log.listRotations()).map((r) => r.n));
      interruptedToolCalls.push(...(await this.#answerCutCommands(log, this.#fileRecovery?.command ?? null)));
    }
    return { ...read.report, interruptedToolCalls, fileRecovery: this.#fileRecovery };
  }

  /**
   * Goes back to `base` (keeping the first `keptMarks` checkpoints) and
   * writes `then` after it, as one `truncateAndRotate` of the log. The state
   * changes only once the log has taken it.
   */
  async #truncate(log: ContextLog, base: Base, keptMarks: number, then: ClearContinuation): Promise<{ rotation: LogRotation; newCheckpoint?: ContextCheckpoint }> {
    const state = this.#state;
    const planned: PlannedStep = planStep(state.history, base, then, true);
    const truncation = await log.truncateAndRotate(base.position, planned.records);
    this.#state = applyStep(stateAt(state, base, keptMarks, this.#estimate), planned, truncation.positions, this.#estimate);
    const rotation = { n: truncation.n, location: truncation.location };
    return planned.first === null ? { rotation } : { rotation, newCheckpoint: publicCheckpoint(planned.first) };
  }

  /** The state now, as a step planned after it starts from. */
  #base(): Omit<Base, "position"> {
    const { history, tokenCount, usageAt, systemPrompt, nextCheckpointId } = this.#state;
    return { messageCount: history.length, tokenCount, messagesBeforeLastUsage: usageAt, systemPrompt, nextCheckpointId };
  }

  #findMark(idOrLabel: number | string): number {
    const marks = this.#state.marks;
    const index = typeof idOrLabel === "number" ? marks.findIndex((m) => m.id === idOrLabel) : marks.findLastIndex((m) => m.label === idOrLabel);
    if (index < 0) throw new CheckpointNotFoundError(idOrLabel, marks.map(({ id, label }) => (label === undefined ? { id } : { id, label })));
    return index;
  }

  /**
   * Makes `state` (the log just read) the context's, with every tool call
   * without a result answered as interrupted: the calls at the end of the
   * history in the log, the others in memory, shifting the checkpoints
   * after them so that a revert keeps each call with its result.
   */
  async #answerUnfinishedCalls(log: ContextLog, state: ContextState): Promise<InterruptedToolCall[]> {
    const found = findUnansweredToolCalls(state.history);
    const tail = found.at(-1)?.index === state.history.length ? found.pop()! : null;
    this.#state = withResultsInserted(state, found);
    if (tail !== null) {
      await log.append(tail.results.map(messageRecord));
      this.#state = withMessages(this.#state, tail.results, this.#estimate);
    }
    const ids = (results: readonly Message[], appended: boolean) => results.map((m) => ({ toolCallId: m.tool_call_id!, appended }));
    return [...found.flatMap((f) => ids(f.results, false)), ...(tail === null ? [] : ids(tail.results, true))];
  }

  /**
   * Answers each tool call the file journal says a crash cut while its
   * command ran and that the history does not hold (its step was never
   * written): the call and its interrupted result, naming the files it
   * changed, are appended, so the model learns that it ran partly.
   */
  async #answerCutCommands(log: ContextLog, report: InterruptedCommandReport | null): Promise<InterruptedToolCall[]> {
    if (report === null) return [];
    const known = new Set(this.#state.history.flatMap((message) => (message.tool_calls ?? []).map((call) => call.id)));
    const cut = report.calls.filter((call) => !known.has(call.id));
    if (cut.length === 0) return [];
    const messages = cut.flatMap((call) => cutCommandMessages(call, report));
    await log.append(messages.map(messageRecord));
    this.#state = withMessages(this.#state, messages, this.#estimate);
    return cut.map((call) => ({ toolCallId: call.id, appended: true }));
  }
}

/** The first message the user typed in `messages`, on one line and shortened for a rotation note; null without one. */
function firstPrompt(messages: readonly Message[]): string | null {
  const typed = messages.find(isUserTyped);
  if (typed === undefined) return null;
  return [...extractText(typed, " ").replace(/\s+/g, " ").trim()].slice(0, MAX_NOTE_PROMPT).join("");
}

/** How many first messages `a` and `b` have in common. */
function sharedPrefix(a: readonly Message[], b: readonly Message[]): number {
  let i = 0;
  while (i < a.length && i < b.length && (a[i] === b[i] || serializeMessage(a[i]!) === serializeMessage(b[i]!))) i += 1;
  return i;
}

function isMessageList(value: Message | readonly Message[]): value is readonly Message[] {
  return Array.isArray(value);
}
