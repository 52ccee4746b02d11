/**
 * Soul events as kimi-cli's wire messages. kimi-cli sends every content
 * part as a `ContentPart` event, sends `ApprovalRequest` as a JSON-RPC
 * `request` the client answers, and has empty payloads for `TurnEnd`,
 * `StepInterrupted`, `CompactionBegin` and `CompactionEnd`. kimi-cli's
 * `ToolCall` is sent when a call starts streaming (the soul's
 * `ToolCallBegin`), its arguments following as `ToolCallPart`s; the soul's
 * complete `ToolCall` has no wire message of its own. Events kimi-cli does
 * not have (`StepRetry`, `CheckpointCreated`, `Reverted`, `Warning`) are not
 * sent: its clients reject unknown event types. A child soul's events go out
 * as kimi-cli's `SubagentEvent` (`parent_tool_call_id`, `agent_id`,
 * `subagent_type`, and the child's event in its wire form).
 */
import type { SoulEvent } from "../events/index.js";

/** One wire message: kimi-cli's envelope. */
export interface WireMessage {
  type: string;
  payload: Record<string, unknown>;
}

/** Whether the message goes out as an `event` notification or as a `request` the client must answer. */
export type WireMessageKind = "event" | "request";

/** The type names kimi-cli sends as `request` (the rest are events). */
const requestTypes = new Set(["ApprovalRequest", "ToolCallRequest", "QuestionRequest", "HookRequest"]);

/** How `message` is sent. */
export function wireMessageKind(message: WireMessage): WireMessageKind {
  return requestTypes.has(message.type) ? "request" : "event";
}

/** The wire message of a soul event, or null when kimi-cli's wire has no such event. */
export function toWireMessage(event: SoulEvent): WireMessage | null {
  switch (event.type) {
    case "TurnBegin":
    case "SteerInput":
      return { type: event.type, payload: { user_input: event.payload.user_input } };
    case "StepBegin":
      return { type: "StepBegin", payload: { n: event.payload.n } };
    case "TurnEnd":
    case "StepInterrupted":
    case "CompactionBegin":
    case "CompactionEnd":
      return { type: event.type, payload: {} };
    case "StatusUpdate": {
      const { context_usage, context_tokens, max_context_tokens, token_usage, message_id } = event.payload;
      return { type: "StatusUpdate", payload: { context_usage, context_tokens, max_context_tokens, token_usage, message_id } };
    }
    case "TextPart":
    case "ThinkPart":
    case "ImageURLPart":
    case "AudioURLPart":
    case "VideoURLPart":
      return { type: "ContentPart", payload: { ...event.payload } };
    case "ToolCallBegin": {
      const { type, id, function: fn, extras } = event.payload;
      return { type: "ToolCall", payload: { type, id, function: fn, extras: extras ?? null } };
    }
    case "ToolCallPart":
      return { type: "ToolCallPart", payload: { arguments_part: event.payload.arguments_part } };
    case "ToolResult":
      return { type: "ToolResult", payload: { tool_call_id: event.payload.tool_call_id, return_value: event.payload.return_value } };
    case "ApprovalRequest":
      return { type: "ApprovalRequest", payload: { ...event.payload, display: [] } };
    case "ApprovalResponse":
      return { type: "ApprovalResponse", payload: { ...event.payload } };
    case "SubagentEvent": {
      // kimi-cli's SubagentEvent: the child's event in its own wire form; a child event the wire has not, not at all.
      const { event: nested, ...origin } = event.payload;
      const inner = toWireMessage(nested);
      return inner === null || wireMessageKind(inner) === "request" ? null : { type: "SubagentEvent", payload: { ...origin, event: inner } };
    }
    case "ToolCall":
    case "StepRetry":
    case "CheckpointCreated":
    case "Reverted":
    case "Warning":
      return null;
  }
}
