/**
 * Hooks: typed callbacks a host gives the soul (`new Soul({ hooks })`) to
 * watch and steer the loop at its lifecycle points, the library form of
 * Claude Code's and kimi-cli's hook events. The CLI's command hooks
 * (`[[hooks]]` in config.toml, `.claude/settings.json`) are built on them.
 *
 * Every callback may be async and may throw: a thrown error or a rejected
 * promise never stops the loop (hooks fail open), it becomes a `Warning`
 * event (`code: "hook_failed"`). An outcome's `warnings` become `Warning`
 * events (`code: "hook"`), for what the user should see (a hook that timed
 * out, printed garbage, exited with an unknown code).
 */
import type { LogRotation } from "@kosong/context";
import type { ToolReturnValue } from "@kosong/core";
import type { CompactionDetails } from "../compaction/index.js";
import type { CompactionReason, StopReason, UserInput } from "../events/events.js";
import type { MessageRange } from "../recall/dropped-ranges.js";

/** What every hook outcome may carry. */
export interface HookOutcome {
  /** Notices for the user (each a `Warning` event with `code: "hook"`). */
  warnings?: string[];
}

/** A tool call about to run (before its approval is asked). */
export interface PreToolUseInput {
  toolName: string;
  /** The call's arguments, parsed (the raw string when they are not JSON). */
  toolInput: unknown;
  toolCallId: string;
}

/** What a PreToolUse hook decides. */
export interface PreToolUseOutcome extends HookOutcome {
  /**
   * `deny`: the tool does not run, the model reads `reason`; `allow`: the
   * call runs without asking for approval; `ask` or none: as usual.
   */
  decision?: "allow" | "deny" | "ask";
  /** Why: given to the model with `deny`. */
  reason?: string;
  /** Arguments to run the tool with instead of the model's. */
  updatedInput?: Record<string, unknown>;
  /** Text the model reads with the tool's result. */
  additionalContext?: string;
}

/** A tool call that ran: `output` is its result (`is_error` false). */
export interface PostToolUseInput extends PreToolUseInput {
  output: ToolReturnValue;
}

/** A tool call that failed: `error` is what the model reads. */
export interface PostToolUseFailureInput extends PreToolUseInput {
  error: string;
}

/** What a PostToolUse or PostToolUseFailure hook adds. */
export interface PostToolUseOutcome extends HookOutcome {
  /** Text the model reads with the tool's result (a formatter's report, a lint finding). */
  additionalContext?: string;
}

/** The user's input, before it enters the context. */
export interface UserPromptSubmitInput {
  /** The input's text (its text parts joined). */
  prompt: string;
  input: UserInput;
}

/** What a UserPromptSubmit hook decides. */
export interface UserPromptSubmitOutcome extends HookOutcome {
  /** Blocks the prompt: it never enters the context, and the turn ends with a `HookBlockedError` saying this. */
  block?: string;
  /** Text added to the user's message for the model. */
  additionalContext?: string;
}

/** The turn is about to end because the model answered without calling a tool. */
export interface StopInput {
  stopReason: StopReason;
  /** True when the turn already went on once because of a Stop hook (check it to avoid endless turns). */
  stopHookActive: boolean;
  steps: number;
}

/** What a Stop hook decides. */
export interface StopOutcome extends HookOutcome {
  /** Keeps the turn going: the model reads this as a user message and answers again. */
  block?: string;
}

/** A compaction about to run. */
export interface PreCompactInput {
  trigger: CompactionReason;
  /** The strategy's name. */
  strategy: string;
  /** The context's token estimate now. */
  tokensBefore: number;
  /** Messages in the context now. */
  messages: number;
  /** The instruction given to `soul.compact()`, if any. */
  instruction?: string;
}

/** A compaction that replaced the context. */
export interface PostCompactInput extends PreCompactInput {
  tokensAfter: number;
  /** Messages in the compacted context. */
  messagesAfter: number;
  /** Which messages of the old history the compacted one no longer holds (summarised or dropped). */
  dropped: MessageRange[];
  /** Where the old history is kept in full (`context.restoreRotation(n)` brings it back); null when nothing changed. */
  rotation: LogRotation | null;
  /** What the strategy reported. */
  details: CompactionDetails | null;
}

/** Something the user may want to be told of outside the terminal. */
export interface NotificationInput {
  /** `approval_needed`: a tool waits for the user's answer; `turn_done`: the turn ended, the agent waits for input. */
  kind: "approval_needed" | "turn_done";
  message: string;
}

/** A subagent (a child soul) starting or ending: for hosts that run them. */
export interface SubagentInput {
  agentName: string;
  /** The task given to the subagent (start) or its final answer (stop). */
  text: string;
}

/**
 * The hooks of a soul, each optional. Tool hooks see every call of the
 * agent's toolset; compaction hooks every compaction (auto, overflow,
 * manual); `notification` approval requests and turn ends. A host that owns
 * sessions or subagents fires `sessionStart`/`sessionEnd` and
 * `subagentStart`/`subagentStop` itself (see {@link HostHooks}).
 */
export interface SoulHooks {
  preToolUse?(input: PreToolUseInput): PreToolUseOutcome | void | Promise<PreToolUseOutcome | void>;
  postToolUse?(input: PostToolUseInput): PostToolUseOutcome | void | Promise<PostToolUseOutcome | void>;
  postToolUseFailure?(input: PostToolUseFailureInput): PostToolUseOutcome | void | Promise<PostToolUseOutcome | void>;
  userPromptSubmit?(input: UserPromptSubmitInput): UserPromptSubmitOutcome | void | Promise<UserPromptSubmitOutcome | void>;
  stop?(input: StopInput): StopOutcome | void | Promise<StopOutcome | void>;
  preCompact?(input: PreCompactInput): HookOutcome | void | Promise<HookOutcome | void>;
  postCompact?(input: PostCompactInput): HookOutcome | void | Promise<HookOutcome | void>;
  notification?(input: NotificationInput): HookOutcome | void | Promise<HookOutcome | void>;
}

/** Session start: new or resumed. */
export interface SessionStartInput {
  source: "startup" | "resume";
}

/** What a SessionStart hook adds. */
export interface SessionStartOutcome extends HookOutcome {
  /** Text for the model (the host adds it to the first prompt). */
  additionalContext?: string;
}

/** Session end. */
export interface SessionEndInput {
  reason: "exit" | "error" | "other";
}

/** The hooks a host fires around souls: session and subagent lifecycle. */
export interface HostHooks {
  sessionStart?(input: SessionStartInput): SessionStartOutcome | void | Promise<SessionStartOutcome | void>;
  sessionEnd?(input: SessionEndInput): HookOutcome | void | Promise<HookOutcome | void>;
  subagentStart?(input: SubagentInput): HookOutcome | void | Promise<HookOutcome | void>;
  subagentStop?(input: SubagentInput): HookOutcome | void | Promise<HookOutcome | void>;
}
