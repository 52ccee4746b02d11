/**
 * The tools of MCP servers as one core {@link Toolset}: each server's tools
 * under `mcp__<server>__<tool>`, kept current as servers change their lists,
 * restart or fail. A call asks the host's approval first (as any tool that
 * acts does), then runs on the server with the step's abort signal as MCP
 * cancellation and a timeout; whatever happens becomes a result the model
 * reads, never an exception.
 */
import {
  parseToolArguments,
  type Tool,
  type ToolCall,
  ToolCancelledError,
  type ToolContext,
  toolError,
  type ToolHandleOptions,
  ToolNotFoundError,
  ToolParseError,
  type ToolResult,
  type ToolReturnValue,
  type Toolset,
  ToolValidateError,
} from "@kosong/core";
import { describeThrown } from "./describe-thrown.js";
import { McpConnectError } from "./mcp-errors.js";
import { isConnectionClosed, isRequestTimeout, type McpServerConnection, type McpTool } from "./mcp-server-connection.js";
import { capText, visibleLine } from "./server-text.js";
import { defaultResultLimits, type ResultLimits, toolResultFromMcp } from "./tool-result.js";
import { qualifiedToolNames } from "./tool-names.js";

/** Options of {@link McpToolset}. */
export interface McpToolsetOptions {
  /**
   * Let tools whose server marks them `readOnlyHint` run without asking
   * (default false: every MCP tool call asks the host, as mutating tools
   * do). A hint can only spare a question, never add a permission: a tool
   * without the hint always asks.
   */
  trustReadOnlyHint?: boolean;
  /** Bounds on one result (characters of text, bytes of media, parts). */
  limits?: Partial<ResultLimits>;
  /**
   * The approval asked when a call's tool context brings none (outside a
   * soul: core's `step()`, `toolset.handle()`). Default: none, and such a
   * call fails closed (it does not run; the model reads
   * {@link NO_APPROVAL_CHANNEL_MESSAGE}). `{ request: async () => ({ approved: true }) }`
   * runs every call without asking. An approval in the tool context wins.
   */
  approval?: McpApproval;
}

/**
 * What a host puts in `ToolContext.approval` (the soul's `ToolApproval`
 * has this shape) or in {@link McpToolsetOptions.approval}: asked before
 * each call. A call with neither fails closed: it does not run, and the
 * model reads {@link NO_APPROVAL_CHANNEL_MESSAGE}.
 */
export interface McpApproval {
  request(action: string, description: string): Promise<{ approved: true } | { approved: false; rejection: ToolReturnValue }>;
}

/** The error result of a call that needs approval when the tool context has no approval to ask (the soul's `askApproval` says the same). */
export const NO_APPROVAL_CHANNEL_MESSAGE = "This tool needs the user's approval, and no approval channel was given, so it did not run.";

/** One MCP tool under its qualified name. */
export interface McpToolEntry {
  /** The name the model calls: `mcp__<server>__<tool>`. */
  qualifiedName: string;
  server: McpServerConnection;
  tool: McpTool;
}

/** The tools of several MCP servers as one toolset. */
export class McpToolset implements Toolset {
  readonly #servers: readonly McpServerConnection[];
  readonly #trustReadOnly: boolean;
  readonly #limits: ResultLimits;
  readonly #approval: McpApproval | undefined;
  #cacheKey = "";
  #entries = new Map<string, McpToolEntry>();
  #definitions: readonly Tool[] = [];

  constructor(servers: readonly McpServerConnection[], options: McpToolsetOptions = {}) {
    this.#servers = servers;
    this.#trustReadOnly = options.trustReadOnlyHint ?? false;
    this.#limits = { ...defaultResultLimits, ...options.limits };
    this.#approval = options.approval;
  }

  /** The servers behind the toolset. */
  get servers(): readonly McpServerConnection[] {
    return this.#servers;
  }

  /** The definitions for the model: the tools of every server that is connected (or restarting). */
  get tools(): readonly Tool[] {
    this.#refresh();
    return this.#definitions;
  }

  /** Every tool with its qualified name and server, in server order. */
  entries(): McpToolEntry[] {
    this.#refresh();
    return [...this.#entries.values()];
  }

  /** True when `name` is the qualified name of one of its tools now. */
  has(name: string): boolean {
    this.#refresh();
    return this.#entries.has(name);
  }

  async handle(toolCall: ToolCall, options: ToolHandleOptions = {}): Promise<ToolResult> {
    const id = toolCall.id;
    const result = (value: ToolReturnValue): ToolResult => ({ tool_call_id: id, return_value: value });
    this.#refresh();
    const entry = this.#entries.get(toolCall.function.name);
    if (entry === undefined) return result(new ToolNotFoundError(toolCall.function.name));
    let args: unknown;
    try {
      args = parseToolArguments(toolCall.function.arguments);
    } catch (error) {
      return result(new ToolParseError(describeThrown(error)));
    }
    if (typeof args !== "object" || args === null || Array.isArray(args)) return result(new ToolValidateError("the arguments must be a JSON object"));
    const signal = options.signal ?? new AbortController().signal;
    const context: ToolContext = { ...options.context, toolCallId: id, signal };
    try {
      return result(await this.#call(entry, args as Record<string, unknown>, context));
    } catch (error) {
      if (signal.aborted) return result(new ToolCancelledError());
      return result(toolError({ message: `Error running tool: ${describeThrown(error)}`, brief: "Tool runtime error" }));
    }
  }

  async #call(entry: McpToolEntry, args: Record<string, unknown>, context: ToolContext): Promise<ToolReturnValue> {
    const { server, tool } = entry;
    const label = { server: server.name, tool: tool.name };
    if (!(this.#trustReadOnly && tool.readOnlyHint)) {
      const approval = approvalOf(context) ?? this.#approval;
      // Fails closed, as the soul's askApproval does: no one to ask means no call.
      if (approval === undefined) return toolError({ message: NO_APPROVAL_CHANNEL_MESSAGE, brief: "No approval channel" });
      const description = `call ${visibleLine(tool.name)} on MCP server ${visibleLine(server.name)} with ${capText(JSON.stringify(args), 500)}`;
      const answer = await approval.request(entry.qualifiedName, description);
      if (!answer.approved) return answer.rejection;
    }
    try {
      return toolResultFromMcp(await server.callTool(tool.name, args, { signal: context.signal }), label, this.#limits);
    } catch (error) {
      if (context.signal.aborted) return new ToolCancelledError();
      return callFailure(entry, error);
    }
  }

  /** Rebuilds the names when a server's state or tools changed. */
  #refresh(): void {
    const key = this.#servers.map((server) => server.revision).join(",");
    if (key === this.#cacheKey) return;
    this.#cacheKey = key;
    const pairs = this.#servers.flatMap((server) => server.tools.map((tool) => ({ server, tool })));
    const names = qualifiedToolNames(pairs.map(({ server, tool }) => ({ server: server.name, tool: tool.name })));
    this.#entries = new Map(pairs.map(({ server, tool }, i) => [names[i]!, { qualifiedName: names[i]!, server, tool }]));
    this.#definitions = [...this.#entries.values()].map(({ qualifiedName, tool }) => ({ name: qualifiedName, description: tool.description, parameters: tool.inputSchema }));
  }
}

/**
 * `toolset` with the MCP tools added: the model sees both lists (read at
 * each step, so MCP changes show), and a call goes to the MCP toolset when
 * it names one of its tools, else to `toolset`.
 */
export function withMcpTools(toolset: Toolset, mcp: McpToolset): Toolset {
  return {
    get tools(): readonly Tool[] {
      const own = toolset.tools;
      const added = mcp.tools;
      return added.length === 0 ? own : [...own, ...added];
    },
    handle(toolCall: ToolCall, options?: ToolHandleOptions): Promise<ToolResult> {
      return mcp.has(toolCall.function.name) ? mcp.handle(toolCall, options) : toolset.handle(toolCall, options);
    },
  };
}

/** The error result for a call that failed: the server is gone, lost mid-call, too slow, or refused. */
function callFailure(entry: McpToolEntry, error: unknown): ToolReturnValue {
  const { server, tool } = entry;
  const name = `\`${visibleLine(tool.name)}\` of MCP server \`${visibleLine(server.name)}\``;
  if (McpConnectError.isInstance(error)) return toolError({ message: `${visibleLine(error.message)}. Do without its tools.`, brief: "MCP server unavailable" });
  if (isConnectionClosed(error) && server.state === "closed") {
    return toolError({ message: `The MCP server \`${visibleLine(server.name)}\` was closed by kosong while running the tool \`${visibleLine(tool.name)}\`; the call did not finish.`, brief: "MCP server closed" });
  }
  if (isConnectionClosed(error)) {
    const after =
      server.state === "failed"
        ? "It was not started again: do without its tools."
        : "It is being restarted; the call was not retried (it may have had effects): call the tool again if needed.";
    if (server.lostToLargeMessage) return toolError({ message: `The tool ${name} sent more than ${server.maxMessageBytes} bytes: the result was dropped and the connection closed. ${after}`, brief: "MCP result too large" });
    return toolError({ message: `The MCP server exited while running the tool ${name}. ${after}`, brief: "MCP server crashed" });
  }
  if (isRequestTimeout(error)) return toolError({ message: `The tool ${name} did not finish in time and was cancelled.`, brief: "Timed out" });
  return toolError({ message: `The tool ${name} failed: ${capText(visibleLine(describeThrown(error)), 2000)}`, brief: "MCP tool failed" });
}

/** The host's approval in `context`, when it has one of the right shape. */
function approvalOf(context: ToolContext): McpApproval | undefined {
  const approval = (context as { approval?: unknown }).approval;
  if (typeof approval !== "object" || approval === null) return undefined;
  return typeof (approval as { request?: unknown }).request === "function" ? (approval as McpApproval) : undefined;
}
