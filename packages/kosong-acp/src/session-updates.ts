/**
 * Soul events and stored messages as ACP `session/update`s: text and think
 * parts as message and thought chunks, tool calls as `tool_call` (pending),
 * their results as `tool_call_update` (completed or failed, with the output),
 * and a child agent's steps (its `SubagentEvent`s) as `tool_call_update`s
 * (in progress) of the parent's call that runs it.
 */
import type { ContentBlock, SessionUpdate, ToolCallStatus, ToolKind } from "@agentclientprotocol/sdk";
import type { ContentPart, Message, ToolReturnValue } from "@kosong/core";
import type { SoulEvent } from "@kosong/soul";
import { checkpointMessageId } from "@kosong/soul/conversation";

/** The ACP kind of a tool, by the usual names of kosong's and kimi-cli's tools. */
export function toolKind(name: string): ToolKind {
  if (/^(ReadFile|ReadMediaFile)$/.test(name)) return "read";
  if (/^(WriteFile|EditFile|StrReplaceFile)$/.test(name)) return "edit";
  if (/^(Shell|Bash)$/.test(name)) return "execute";
  if (/^(Glob|Grep|ListDir|SearchWeb)$/.test(name)) return "search";
  if (name === "FetchURL") return "fetch";
  return "other";
}

/** A content part as an ACP content block (null for parts ACP cannot show). */
export function contentBlock(part: ContentPart): ContentBlock | null {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "think":
      return { type: "text", text: part.think };
    case "image_url": {
      const data = /^data:([^;,]+);base64,(.*)$/s.exec(part.image_url.url);
      return data ? { type: "image", mimeType: data[1]!, data: data[2]! } : { type: "resource_link", uri: part.image_url.url, name: "image" };
    }
    default:
      return null;
  }
}

/** Tracks the tool calls of a turn so their arguments and results can be shown. */
export class ToolCallTracker {
  /** The parsed arguments of each complete call (null when they are not JSON). */
  readonly #calls = new Map<string, unknown>();
  /** A child agent's calls (by `<agent id>/<call id>`: their names) and, per parent call, the child's steps so far (one line each). */
  readonly #childCalls = new Map<string, string>();
  readonly #childSteps = new Map<string, string[]>();

  /** The update for `event`, or null when it has none. */
  update(event: SoulEvent): SessionUpdate | null {
    switch (event.type) {
      case "TextPart":
        return event.payload.text ? { sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.payload.text } } : null;
      case "ThinkPart":
        return event.payload.think ? { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.payload.think } } : null;
      case "ImageURLPart": {
        const content = contentBlock(event.payload);
        return content && { sessionUpdate: "agent_message_chunk", content };
      }
      case "ToolCall": {
        // The complete call, just before it runs (the streamed ToolCallBegin/ToolCallPart are not shown).
        const { id, function: fn, parsed_arguments } = event.payload;
        this.#calls.set(id, parsed_arguments);
        return { sessionUpdate: "tool_call", toolCallId: id, title: fn.name, kind: toolKind(fn.name), status: "pending", ...(parsed_arguments !== null && { rawInput: parsed_arguments }) };
      }
      case "ToolResult": {
        const id = event.payload.tool_call_id;
        this.#childSteps.delete(id);
        return toolResultUpdate(id, event.payload.return_value, this.rawInput(id));
      }
      case "SubagentEvent":
        return this.#childUpdate(event.payload);
      default:
        return null;
    }
  }

  /**
   * A child agent's step as an update of the parent's call (in progress):
   * the call's content lists the child's finished tool calls, one line each
   * (`coder: ✓ ReadFile`), and ends with the child's text so far.
   */
  #childUpdate(payload: Extract<SoulEvent, { type: "SubagentEvent" }>["payload"]): SessionUpdate | null {
    const { event, parent_tool_call_id: parent, agent_id, subagent_type } = payload;
    const key = `${agent_id}/`;
    const steps = this.#childSteps.get(parent) ?? [];
    this.#childSteps.set(parent, steps);
    if (event.type === "ToolCall") {
      this.#childCalls.set(key + event.payload.id, event.payload.function.name);
      return null;
    }
    if (event.type !== "ToolResult" && event.type !== "StepBegin") return null;
    if (event.type === "ToolResult") {
      const name = this.#childCalls.get(key + event.payload.tool_call_id) ?? event.payload.tool_call_id;
      this.#childCalls.delete(key + event.payload.tool_call_id);
      steps.push(`${subagent_type}: ${event.payload.return_value.is_error ? "✗" : "✓"} ${name}`);
    } else {
      steps.push(`${subagent_type}: step ${event.payload.n}`);
    }
    return { sessionUpdate: "tool_call_update", toolCallId: parent, status: "in_progress", content: [{ type: "content", content: { type: "text", text: steps.join("\n") } }] };
  }

  /** The arguments of call `id` (undefined when unknown or not JSON). */
  rawInput(id: string): unknown {
    return this.#calls.get(id) ?? undefined;
  }
}

function toolResultUpdate(toolCallId: string, value: ToolReturnValue, rawInput: unknown): SessionUpdate {
  const status: ToolCallStatus = value.is_error ? "failed" : "completed";
  const text = [value.is_error ? value.message : "", outputText(value.output)].filter(Boolean).join("\n");
  return {
    sessionUpdate: "tool_call_update",
    toolCallId,
    status,
    ...(rawInput !== undefined && { rawInput }),
    content: text ? [{ type: "content", content: { type: "text", text } }] : [],
  };
}

function outputText(output: string | ContentPart[]): string {
  if (typeof output === "string") return output;
  return output.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
}

function parseArgs(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The updates that show a stored conversation again (for `session/load`),
 * in order. System messages and checkpoint markers are left out.
 */
export function historyUpdates(history: readonly Message[]): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  for (const message of history) {
    if (message.role === "user") {
      // The soul's visible checkpoint marker (with D-Mail on), not something the user wrote.
      if (checkpointMessageId(message) !== null) continue;
      for (const part of message.content) {
        const content = contentBlock(part);
        if (content) updates.push({ sessionUpdate: "user_message_chunk", content });
      }
    } else if (message.role === "assistant") {
      for (const part of message.content) {
        const content = contentBlock(part);
        if (content) updates.push({ sessionUpdate: part.type === "think" ? "agent_thought_chunk" : "agent_message_chunk", content });
      }
      for (const call of message.tool_calls ?? []) {
        updates.push({ sessionUpdate: "tool_call", toolCallId: call.id, title: call.function.name, kind: toolKind(call.function.name), status: "pending", rawInput: parseArgs(call.function.arguments ?? "") });
      }
    } else if (message.role === "tool" && message.tool_call_id) {
      const text = outputText(message.content);
      updates.push({ sessionUpdate: "tool_call_update", toolCallId: message.tool_call_id, status: "completed", content: text ? [{ type: "content", content: { type: "text", text } }] : [] });
    }
  }
  return updates;
}
