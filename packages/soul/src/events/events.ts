/**
 * The events a soul emits while it works. Each event has kimi-cli's wire
 * shape already: `{ type, payload }`, with kimi-cli's type names and payload
 * field names where kimi-cli has the event, so `JSON.stringify(event)` is the
 * wire envelope (see `serializeEvent` / `parseEvent`).
 *
 * Order within a turn: `TurnBegin`, a `Warning` when there is one to give, then per step `StepBegin`, maybe
 * `CompactionBegin`/`CompactionEnd`, `CheckpointCreated`, the streamed parts
 * (`TextPart`, `ThinkPart`, media parts, `ToolCallBegin`, `ToolCallPart`),
 * each call's `ToolCall` once it is complete and before it runs, and
 * `ToolResult`s in completion order (and `ApprovalRequest`/`ApprovalResponse`
 * while tools wait for approval), `StatusUpdate`; `StepRetry` when an attempt
 * failed and another follows; `StepInterrupted` when the step ended by an
 * abort or an error; `Reverted` after a D-Mail; `SteerInput` after a step when
 * steered input was appended; and always `TurnEnd` last (also after an error
 * or an abort). A tool that runs a child soul adds the child's events as
 * `SubagentEvent`s between its `ToolCall` and its `ToolResult`.
 */
import type {
  AudioURLPart,
  ContentPart,
  ImageURLPart,
  JsonValue,
  StreamedToolCall,
  TextPart,
  ThinkPart,
  TokenUsage,
  ToolCall,
  ToolCallPart,
  ToolReturnValue,
  VideoURLPart,
} from "@kosong/core";
import type { CompactionDetails } from "../compaction/index.js";
import type { FileRestoreReport } from "@kosong/workspace";

/** Why a turn ended. */
export type StopReason =
  /** The model answered without calling a tool: the normal end. */
  | "no_tool_calls"
  /** A tool call was rejected by the user without feedback. */
  | "tool_rejected"
  /** The turn reached `maxStepsPerTurn`. */
  | "max_steps"
  /** The caller's signal aborted the turn. */
  | "aborted"
  /** An error the soul could not recover from (retries exhausted, a non-retryable provider error, a failing context). */
  | "error";

/** What the user sent: plain text or content parts. */
export type UserInput = string | ContentPart[];

/** How a user answered an approval request (kimi-cli's `ApprovalResponse.Kind`). */
export type ApprovalKind = "approve" | "approve_for_session" | "reject";

/** Every {@link ApprovalKind}: an answer outside this list approves nothing. */
export const approvalKinds: readonly ApprovalKind[] = ["approve", "approve_for_session", "reject"];

/** Why a compaction ran. */
export type CompactionReason =
  /** The context reached the trigger (`tokens >= max * ratio` or `tokens + reserved >= max`). */
  | "auto"
  /** The provider rejected a request as too long for the context window. */
  | "overflow"
  /** `soul.compact()` was called. */
  | "manual";

/** Why the soul reverted its context. */
export type RevertReason =
  /** The model's D-Mail (`SendDMail`). */
  | "dmail"
  /** The host's `soul.rewrite()`. */
  | "rewrite";

/** The payload of each event type, by type name. */
export interface SoulEventPayloads {
  /** A turn began with this input (the first event of every turn). */
  TurnBegin: { user_input: UserInput };
  /** Input given with `soul.steer()` was appended after the step that just ended. */
  SteerInput: { user_input: UserInput };
  /** The turn ended (always the last event of a turn). */
  TurnEnd: { stop_reason: StopReason; steps: number; usage: TokenUsage; error: string | null };
  /** Step `n` (1-based within the turn) began. */
  StepBegin: { n: number };
  /**
   * The LLM call of step `n` failed with a retryable error and is tried again
   * after `delay_ms`. The parts and tool results since the step (or the last
   * retry) began belong to the failed attempt: they never reach the context,
   * discard them.
   */
  StepRetry: { n: number; attempt: number; delay_ms: number; error: string; error_type: string };
  /** The step ended early: the caller aborted, or an error ended the turn. */
  StepInterrupted: { reason: "aborted" | "error"; error: string | null };
  /** A compaction began; `CompactionEnd` follows unless it fails (then the turn or `compact()` ends with the error). */
  CompactionBegin: { reason: CompactionReason; strategy: string };
  /**
   * The compaction ended; tokens are the context's estimate before and
   * after. `details` says what the strategy kept (`kept`, `dropped`), made
   * (`stubs`, `filesRecovered`, `summarized`) and noted, plus a note for each
   * repair the soul made to an invalid output; null when the strategy
   * reports nothing and nothing needed repair.
   */
  CompactionEnd: { tokens_before: number; tokens_after: number; details: CompactionDetails | null };
  /**
   * Context usage after a step. `context_usage` is the fraction of the window
   * in use (0..1, kimi-cli's name), null when the window size is unknown.
   */
  StatusUpdate: {
    context_usage: number | null;
    context_tokens: number;
    max_context_tokens: number | null;
    token_usage: TokenUsage | null;
    message_id: string | null;
  };
  /** A streamed text part. */
  TextPart: TextPart;
  /** A streamed think part. */
  ThinkPart: ThinkPart;
  /** A streamed image part. */
  ImageURLPart: ImageURLPart;
  /** A streamed audio part. */
  AudioURLPart: AudioURLPart;
  /** A streamed video part. */
  VideoURLPart: VideoURLPart;
  /**
   * A tool call as it starts streaming, for live display: its arguments may
   * be partial and continue in `ToolCallPart`s. `ToolCall` follows with the
   * complete call.
   */
  ToolCallBegin: StreamedToolCall;
  /** A fragment of the arguments of the tool call that is streaming (for live display). */
  ToolCallPart: ToolCallPart;
  /**
   * A complete tool call, just before it runs: `function.arguments` is the
   * final JSON text and `parsed_arguments` its value (`{}` for empty
   * arguments, null when the text is not JSON: the tool then gets a parse
   * error). One per call, in call order, before its `ToolResult`.
   */
  ToolCall: ToolCall & { parsed_arguments: JsonValue | null };
  /**
   * Something the host should know, once: `code` names it, `message` says
   * what to do. `context_window_unknown`: neither the config nor the
   * provider knows the model's context window, so nothing compacts before
   * the provider rejects a request as too long (emitted after the first
   * `TurnBegin`). `hook`: a hook's notice for the user (it timed out,
   * printed garbage, ...); `hook_failed`: a hook threw, and the loop went
   * on without it.
   */
  Warning: { code: string; message: string };
  /** A tool finished (or was cancelled); in completion order. */
  ToolResult: { tool_call_id: string; return_value: ToolReturnValue };
  /**
   * A tool asks for approval; answer with `soul.approval.respond(id, ...)`.
   * `action` is the key `approve_for_session` remembers; `scope`, when the
   * tool gives one, says in words what approving for the session covers
   * (e.g. "`git status` commands"), for the host to show with that choice.
   * `once: true`: only this request can be approved (e.g. one plan), so the
   * host offers approve and reject, not approving for the session; an
   * `approve_for_session` answer approves it once and remembers nothing.
   */
  ApprovalRequest: { id: string; tool_call_id: string; sender: string; action: string; description: string; scope?: string; once?: boolean };
  /** An approval request was answered (by the user, by a session-wide approval or by yolo). */
  ApprovalResponse: { request_id: string; response: ApprovalKind; feedback: string };
  /** The context made checkpoint `id`. */
  CheckpointCreated: { id: number; label: string | null };
  /**
   * The context was reverted (to `checkpoint_id`, or cleared when null) and
   * the turn goes on from there. `files` (with a file journal) lists the
   * workspace files restored with it, skipped, and left alone as conflicts.
   */
  Reverted: { checkpoint_id: number | null; reason: RevertReason; files?: FileRestoreReport };
  /**
   * An event of a child soul (a subagent) that a tool of this turn runs,
   * nested under that tool's call (kimi-cli's `SubagentEvent`): between
   * the call's `ToolCall` and its `ToolResult`. `agent_id` names the child
   * (to resume it), `subagent_type` its kind. The child's approval requests
   * are not nested: they arrive as this turn's own `ApprovalRequest`s, their
   * `sender` naming the child.
   */
  SubagentEvent: SubagentEventPayload;
}

/** The payload of a `SubagentEvent`. */
export interface SubagentEventPayload {
  /** The id of the tool call (of this turn) that runs the child. */
  parent_tool_call_id: string;
  /** The child's id. */
  agent_id: string;
  /** The child's kind (`coder`, `explore`, a custom agent's name). */
  subagent_type: string;
  /** The child's event, as its own turn emitted it (itself maybe a `SubagentEvent` of a grandchild). */
  event: SoulEvent;
}

/** The type names of soul events. */
export type SoulEventType = keyof SoulEventPayloads;

/** The event of type `K`. */
export interface SoulEventOf<K extends SoulEventType> {
  type: K;
  payload: SoulEventPayloads[K];
}

/** Any soul event, discriminated by `type`. */
export type SoulEvent = { [K in SoulEventType]: SoulEventOf<K> }[SoulEventType];

/** The content-part event types, by the part's own `type`. */
export const partEventTypes = {
  text: "TextPart",
  think: "ThinkPart",
  image_url: "ImageURLPart",
  audio_url: "AudioURLPart",
  video_url: "VideoURLPart",
} as const satisfies Record<ContentPart["type"], SoulEventType>;
