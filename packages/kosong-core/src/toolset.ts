/**
 * Toolsets: the tools offered to the model and the dispatcher of its calls.
 */
import type { Tool } from "./chat-provider.js";
import { KosongError } from "./errors.js";
import type { ToolCall } from "./message.js";
import { thrownMessage } from "./thrown-message.js";
import type { CallableTool } from "./tool.js";
import type { ToolContext, ToolContextExtensions } from "./tool-context.js";
import { ToolCancelledError, ToolNotFoundError, ToolParseError, ToolRuntimeError } from "./tool-errors.js";
import type { ToolReturnValue } from "./tool-return-value.js";

/** The result of one tool call (kosong's `ToolResult`). */
export interface ToolResult {
  tool_call_id: string;
  return_value: ToolReturnValue;
}

/** Options of {@link Toolset.handle}. */
export interface ToolHandleOptions {
  /** Aborted when the call must be cancelled. */
  signal?: AbortSignal;
  /** Extra members of the tool's {@link ToolContext} (see {@link ToolContextExtensions}). */
  context?: Partial<ToolContextExtensions>;
}

/** The tools the model may call, and how their calls are handled. */
export interface Toolset {
  /** The definitions sent to the model. */
  readonly tools: readonly Tool[];
  /**
   * Handles one tool call. Must not block and must not reject: every failure
   * (unknown tool, bad arguments, a thrown error) is an error result.
   */
  handle(toolCall: ToolCall, options?: ToolHandleOptions): Promise<ToolResult>;
}

/**
 * Parses tool call arguments as kosong does: null or empty means `{}`, and
 * raw control characters inside strings are tolerated (Python's
 * `json.loads(strict=False)`). Throws the JSON error otherwise.
 */
export function parseToolArguments(raw: string | null): unknown {
  if (raw === null || raw === "") return {};
  try {
    return JSON.parse(raw);
  } catch (error) {
    const escaped = escapeControlCharsInStrings(raw);
    if (escaped === raw) throw error;
    try {
      return JSON.parse(escaped);
    } catch {
      throw error;
    }
  }
}

/** A toolset of {@link CallableTool}s, keyed by name; calls run concurrently. */
export class SimpleToolset implements Toolset {
  private readonly byName = new Map<string, CallableTool>();
  private definitions: readonly Tool[] | null = null;

  constructor(tools: Iterable<CallableTool> = []) {
    for (const tool of tools) this.add(tool);
  }

  /** Adds a tool, replacing any tool of the same name. */
  add(tool: CallableTool): this {
    this.byName.set(tool.name, tool);
    this.definitions = null;
    return this;
  }

  /**
   * Removes the tool named `name`.
   * @throws KosongError when there is no such tool.
   */
  remove(name: string): void {
    if (!this.byName.delete(name)) throw new KosongError(`Tool \`${name}\` not found in the toolset.`);
    this.definitions = null;
  }

  /** The tool named `name`, if any. */
  get(name: string): CallableTool | undefined {
    return this.byName.get(name);
  }

  get tools(): readonly Tool[] {
    return (this.definitions ??= Array.from(this.byName.values(), (tool) => tool.definition));
  }

  handle(toolCall: ToolCall, options: ToolHandleOptions = {}): Promise<ToolResult> {
    const id = toolCall.id;
    const tool = this.byName.get(toolCall.function.name);
    if (tool === undefined) return Promise.resolve({ tool_call_id: id, return_value: new ToolNotFoundError(toolCall.function.name) });
    let args: unknown;
    try {
      args = parseToolArguments(toolCall.function.arguments);
    } catch (error) {
      return Promise.resolve({ tool_call_id: id, return_value: new ToolParseError(thrownMessage(error)) });
    }
    const signal = options.signal ?? new AbortController().signal;
    if (signal.aborted) return Promise.resolve({ tool_call_id: id, return_value: new ToolCancelledError() });
    return callTool(tool, args, { ...options.context, toolCallId: id, signal });
  }
}

async function callTool(tool: CallableTool, args: unknown, context: ToolContext): Promise<ToolResult> {
  const id = context.toolCallId;
  try {
    return { tool_call_id: id, return_value: await tool.call(args, context) };
  } catch (error) {
    const value = context.signal.aborted ? new ToolCancelledError() : new ToolRuntimeError(thrownMessage(error));
    return { tool_call_id: id, return_value: value };
  }
}

/** A toolset without tools: every call is answered with `ToolNotFoundError`. */
export class EmptyToolset implements Toolset {
  readonly tools: readonly Tool[] = [];

  handle(toolCall: ToolCall): Promise<ToolResult> {
    return Promise.resolve({ tool_call_id: toolCall.id, return_value: new ToolNotFoundError(toolCall.function.name) });
  }
}

function escapeControlCharsInStrings(text: string): string {
  let out = "";
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
      else if (code < 0x20) {
        out += text.slice(from, i) + "\\u" + code.toString(16).padStart(4, "0");
        from = i + 1;
      }
    } else if (code === 0x22) inString = true;
  }
  return from === 0 ? text : out + text.slice(from);
}
