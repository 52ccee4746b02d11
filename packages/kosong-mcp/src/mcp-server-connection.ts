/**
 * One MCP server: started (stdio) or reached (streamable HTTP) with the
 * official SDK's client, its tools listed and kept current through
 * `notifications/tools/list_changed`, calls with a timeout and cancellation,
 * and one restart after the connection is lost (a stdio server that
 * crashed). Everything the server sends is treated as hostile: tool names
 * and descriptions are made printable, invalid, oversized or over-deep
 * tool definitions are left out (the server's other tools stay), a stdio message is capped while it is read, its stderr is kept
 * (bounded) for error messages and never reaches the terminal.
 */
import { type JsonSchema, redactUrlPasswords } from "@kosong/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type CallToolResult, ErrorCode, McpError, ToolListChangedNotificationSchema, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import packageJson from "../package.json" with { type: "json" };
import { isStdioServer, type McpServerConfig } from "./mcp-config.js";
import { describeThrown } from "./describe-thrown.js";
import { McpMessageTooLargeError } from "./json-line-buffer.js";
import { McpStdioTransport } from "./mcp-stdio-transport.js";
import { jsonDepth } from "./json-depth.js";
import { McpConnectError } from "./mcp-errors.js";
import { capText, visibleLine, visibleText } from "./server-text.js";

/**
 * Where a server is: `connecting` (first start), `connected`, `restarting`
 * (the connection was lost and it is started again), `failed` (it could not
 * be started, or was lost again after its restarts), `closed` (by the host).
 */
export type McpServerState = "connecting" | "connected" | "restarting" | "failed" | "closed";

/** A tool as the server lists it, made safe to show. */
export interface McpTool {
  /** The name the server knows it by (sent back as is in `tools/call`). */
  readonly name: string;
  /** The description for the model: printable, at most 10,000 characters. */
  readonly description: string;
  /** The JSON Schema of its arguments, passed through as the server sent it. */
  readonly inputSchema: JsonSchema;
  /** The server says the tool does not change anything (`annotations.readOnlyHint`). A hint only. */
  readonly readOnlyHint: boolean;
}

/** What happened to a server, for a host to report. Texts are printable (control characters escaped). */
export type McpServerEvent =
  | { type: "connected"; server: string; tools: number }
  | { type: "failed"; server: string; error: string }
  | { type: "crashed"; server: string; error: string; restarting: boolean }
  | { type: "restarted"; server: string; tools: number }
  | { type: "tools_changed"; server: string; tools: number };

/** Options of a {@link McpServerConnection}. */
export interface McpConnectionOptions {
  /** How long starting the server and its `initialize` and `tools/list` answers may take, in ms (default 30,000). */
  connectTimeoutMs?: number;
  /** How long one tool call may take, in ms (default 60,000); then it is cancelled and fails. */
  callTimeoutMs?: number;
  /** How often a lost connection is re-established (default 1). A server lost once more is `failed`. */
  maxRestarts?: number;
  /**
   * The largest message a stdio server may send, in bytes (default 64 MiB):
   * a larger one is cut off while it is read (never buffered whole) and
   * closes the connection; the call it answered fails saying so, and the
   * server is restarted as after a crash.
   */
  maxMessageBytes?: number;
  /** The client's name and version sent in `initialize` (default `kosong` and the version of @kosong/mcp). */
  clientInfo?: { name: string; version: string };
  /** Receives every {@link McpServerEvent}. Exceptions it throws are ignored. */
  onEvent?: (event: McpServerEvent) => void;
}

/** Options of one {@link McpServerConnection.callTool}. */
export interface McpCallOptions {
  /** Aborting cancels the call on the server (`notifications/cancelled`) and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides the connection's `callTimeoutMs`. */
  timeoutMs?: number;
}

const defaults = { connectTimeoutMs: 30_000, callTimeoutMs: 60_000, maxRestarts: 1, maxMessageBytes: 64 * 1024 * 1024 };
const maxDescriptionChars = 10_000;
const maxSchemaChars = 100_000;
/** Deeper schemas are refused before anything walks them recursively (JSON.stringify, a provider's converter). */
const maxSchemaDepth = 100;
const maxTools = 1000;
const maxListPages = 50;
const stderrTailChars = 2000;
/** A `tools/list` page read without judging its tools: each is checked on its own, so one invalid tool leaves out only itself. */
const ListedToolsSchema = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** A connection to one MCP server. Create it, then {@link connect}; {@link close} when done. */
export class McpServerConnection {
  readonly #options: Required<Omit<McpConnectionOptions, "onEvent" | "clientInfo">> & Pick<McpConnectionOptions, "onEvent" | "clientInfo">;
  #state: McpServerState = "connecting";
  #error: string | null = null;
  #tools: readonly McpTool[] = [];
  #warnings: string[] = [];
  #restarts = 0;
  #revision = 0;
  #client: Client | null = null;
  #transport: Transport | null = null;
  #starting: Promise<void> | null = null;
  #refreshing: Promise<void> = Promise.resolve();
  /** The listing queued behind the running one, not started yet: later notifications share it. */
  #queuedRefresh: { client: Client; run: Promise<void> } | null = null;
  #stderr = "";
  /** The last message over `maxMessageBytes`, which closed the connection (said in the crash report). */
  #tooLarge: McpMessageTooLargeError | null = null;
  #lostToLargeMessage = false;
  #closed = false;

  /**
   * @param name the server's name in the config (it names its tools: `mcp__<name>__<tool>`).
   * @param config how to start or reach it.
   */
  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    options: McpConnectionOptions = {},
  ) {
    this.#options = { ...defaults, ...definedOnly(options) };
  }

  /** {@link name} made printable on one line (it comes from a config file). */
  get displayName(): string {
    return visibleLine(this.name);
  }

  /** Where the server is (see {@link McpServerState}). */
  get state(): McpServerState {
    return this.#state;
  }

  /** Why the server failed or was last lost, printable; null when it never did. */
  get error(): string | null {
    return this.#error;
  }

  /** The tools it offers (the last list while it restarts; none once failed or closed). */
  get tools(): readonly McpTool[] {
    return this.#state === "failed" || this.#state === "closed" ? [] : this.#tools;
  }

  /** Tools left out of {@link tools} and why (an oversized or over-deep schema, a duplicate name), printable. */
  get warnings(): readonly string[] {
    return this.#warnings;
  }

  /**
   * True when the connection was last lost because the server sent a
   * message (a tool's result) over `maxMessageBytes`: it is cut off while
   * reading, never buffered whole, and the connection closed.
   */
  get lostToLargeMessage(): boolean {
    return this.#lostToLargeMessage;
  }

  /** The largest message the server may send, in bytes (`maxMessageBytes`). */
  get maxMessageBytes(): number {
    return this.#options.maxMessageBytes;
  }

  /** How often the connection was re-established after it was lost. */
  get restarts(): number {
    return this.#restarts;
  }

  /** Grows whenever the state or the tools change (for caches). */
  get revision(): number {
    return this.#revision;
  }

  /** `stdio` or `http`. */
  get transport(): "stdio" | "http" {
    return isStdioServer(this.config) ? "stdio" : "http";
  }

  /** The process id of a running stdio server, else null. */
  get pid(): number | null {
    return this.#transport instanceof StdioClientTransport ? this.#transport.pid : null;
  }

  /**
   * Starts (or reaches) the server and lists its tools. Resolves once it is
   * connected (at once when it already is).
   * @throws McpConnectError when it cannot be started or does not answer in time; the state is then `failed`.
   */
  connect(): Promise<void> {
    if (this.#closed) return Promise.reject(new McpConnectError(this.name, `MCP server \`${visibleLine(this.name)}\` is closed.`));
    if (this.#state === "connected") return Promise.resolve();
    if (this.#state === "failed") return Promise.reject(this.#unavailable());
    return (this.#starting ??= this.#start().finally(() => (this.#starting = null)));
  }

  /**
   * Calls tool `name` with `args` and returns the server's result as is
   * (an `isError` result resolves). Waits for a restart in progress.
   * @throws McpConnectError when the server is not available; the SDK's
   *   `McpError` for a protocol error, a timeout (`RequestTimeout`) or a lost
   *   connection (`ConnectionClosed`); the signal's reason when aborted.
   */
  async callTool(name: string, args: Record<string, unknown>, options: McpCallOptions = {}): Promise<CallToolResult> {
    if (this.#starting) await this.#starting.catch(() => undefined);
    const client = this.#client;
    if (client === null || this.#state !== "connected") throw this.#unavailable();
    const timeout = options.timeoutMs ?? this.#options.callTimeoutMs;
    const requestOptions = options.signal ? { signal: options.signal, timeout } : { timeout };
    return (await client.callTool({ name, arguments: args }, undefined, requestOptions)) as CallToolResult;
  }

  /** Disconnects (a stdio server's stdin is closed, then it is terminated if it does not exit). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const client = this.#client;
    this.#client = null;
    this.#setState("closed");
    await this.#starting?.catch(() => undefined);
    await client?.close().catch(() => undefined);
  }

  async #start(): Promise<void> {
    const { client, transport } = this.#createClient();
    const deadline = this.#options.connectTimeoutMs;
    try {
      // The SDK's own request timeout is a backstop; the deadline here names what did not happen.
      await withTimeout(client.connect(transport, { timeout: deadline + 1000 }), deadline, () => `did not answer \`initialize\` within ${deadline} ms`);
      if (this.#closed) throw new Error("closed while connecting");
      this.#client = client;
      this.#transport = transport;
      await withTimeout(this.#refreshTools(client), deadline, () => `did not list its tools within ${deadline} ms`);
    } catch (error) {
      this.#client = null;
      await killClient(client, transport);
      if (this.#closed) throw new McpConnectError(this.name, `MCP server \`${visibleLine(this.name)}\` was closed while connecting.`);
      this.#error = this.#describe(`could not be started: ${this.#tooLarge?.message ?? describeThrown(error)}`);
      this.#tooLarge = null;
      this.#setState("failed");
      this.#emit({ type: "failed", server: this.name, error: this.#error });
      throw new McpConnectError(this.name, this.#error, { cause: error });
    }
    this.#setState("connected");
    this.#emit({ type: this.#restarts > 0 ? "restarted" : "connected", server: this.name, tools: this.#tools.length });
  }

  #createClient(): { client: Client; transport: Transport } {
    const client = new Client(this.#options.clientInfo ?? { name: "kosong", version: packageJson.version }, { capabilities: {} });
    client.onclose = () => this.#onClosed(client);
    client.onerror = (error) => {
      if (error instanceof McpMessageTooLargeError) this.#tooLarge = error;
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (this.#client === client) void this.#refreshTools(client).then(() => this.#emit({ type: "tools_changed", server: this.name, tools: this.#tools.length }), () => undefined);
    });
    this.#stderr = "";
    if (!isStdioServer(this.config)) {
      const { url, headers } = this.config;
      return { client, transport: new StreamableHTTPClientTransport(new URL(url), headers ? { requestInit: { headers } } : {}) };
    }
    const { command, args, env, cwd } = this.config;
    const transport = new McpStdioTransport({ command, ...(args ? { args } : {}), ...(env ? { env } : {}), ...(cwd ? { cwd } : {}), stderr: "pipe" }, this.#options.maxMessageBytes);
    transport.stderr?.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-stderrTailChars);
    });
    return { client, transport };
  }

  /**
   * Lists the tools (every page, bounded), one refresh at a time; a refresh
   * asked for while one waits to start is that one (it lists after the ask),
   * so a flood of `list_changed` costs at most two listings, not one each.
   */
  #refreshTools(client: Client): Promise<void> {
    if (this.#queuedRefresh?.client === client) return this.#queuedRefresh.run;
    const run = this.#refreshing.then(async () => {
      if (this.#queuedRefresh?.run === run) this.#queuedRefresh = null;
      const listed: unknown[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < maxListPages && listed.length < maxTools; page++) {
        const params = cursor === undefined ? {} : { cursor };
        const result = await client.request({ method: "tools/list", params }, ListedToolsSchema, { timeout: this.#options.connectTimeoutMs });
        listed.push(...result.tools);
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      if (client !== this.#client) return;
      // More than kept, or pages left unread: said, not silently dropped.
      const cut = listed.length > maxTools || Boolean(cursor);
      this.#acceptTools(listed.slice(0, maxTools), cut ? [`the server lists more tools than kosong reads: only the first ${Math.min(listed.length, maxTools)} are offered`] : []);
    });
    this.#queuedRefresh = { client, run };
    this.#refreshing = run.catch(() => undefined);
    return run;
  }

  #acceptTools(listed: readonly unknown[], warnings: string[]): void {
    const tools: McpTool[] = [];
    const seen = new Set<string>();
    for (const [index, listedTool] of listed.entries()) {
      const rawName = (listedTool as { name?: unknown } | null)?.name;
      const shown = typeof rawName === "string" ? capText(visibleLine(rawName), 200) : `number ${index + 1}`;
      // Before anything walks it recursively (the definition's check included).
      if (jsonDepth((listedTool as { inputSchema?: unknown } | null)?.inputSchema, maxSchemaDepth) > maxSchemaDepth) {
        warnings.push(`tool \`${shown}\` is left out: its input schema nests more than ${maxSchemaDepth} levels deep`);
        continue;
      }
      const parsed = ToolSchema.safeParse(listedTool);
      if (!parsed.success) {
        warnings.push(`tool \`${shown}\` is left out: its definition is invalid (${capText(visibleLine(firstIssue(parsed.error)), 300)})`);
        continue;
      }
      const tool = parsed.data;
      if (seen.has(tool.name)) {
        warnings.push(`tool \`${shown}\` is listed twice: the second one is left out`);
        continue;
      }
      seen.add(tool.name);
      const schema = JSON.stringify(tool.inputSchema);
      if (schema.length > maxSchemaChars) {
        warnings.push(`tool \`${shown}\` is left out: its input schema has ${schema.length} characters (at most ${maxSchemaChars})`);
        continue;
      }
      tools.push({
        name: tool.name,
        description: capText(visibleText(tool.description ?? ""), maxDescriptionChars),
        inputSchema: tool.inputSchema as JsonSchema,
        readOnlyHint: tool.annotations?.readOnlyHint === true,
      });
    }
    this.#tools = tools;
    this.#warnings = warnings;
    this.#revision++;
  }

  /** The connection ended: unless the host closed it, restart it once, else fail. */
  #onClosed(client: Client): void {
    // While connecting, the failed start reports it.
    if (this.#closed || client !== this.#client || this.#state !== "connected") return;
    this.#client = null;
    this.#transport = null;
    this.#lostToLargeMessage = this.#tooLarge !== null;
    const lost = this.#describe(this.#tooLarge?.message ?? "exited or closed the connection");
    this.#tooLarge = null;
    this.#error = lost;
    const restarting = this.#restarts < this.#options.maxRestarts;
    this.#emit({ type: "crashed", server: this.name, error: lost, restarting });
    if (!restarting) {
      this.#error = `${lost} (after ${this.#restarts} restart${this.#restarts === 1 ? "" : "s"}; not started again)`;
      this.#setState("failed");
      this.#emit({ type: "failed", server: this.name, error: this.#error });
      return;
    }
    this.#restarts++;
    this.#setState("restarting");
    this.#starting = this.#start()
      .catch(() => undefined)
      .finally(() => (this.#starting = null));
  }

  #unavailable(): McpConnectError {
    const why = this.#state === "closed" ? "is closed" : `is not available: ${this.#error ?? this.#state}`;
    return new McpConnectError(this.name, `MCP server \`${visibleLine(this.name)}\` ${why}`);
  }

  /** `MCP server `name` <what>`, with the end of its stderr when it wrote any; passwords of URLs (the server's own and any other) hidden. */
  #describe(what: string): string {
    const stderr = visibleText(this.#stderr.trim());
    const url = isStdioServer(this.config) ? undefined : this.config.url;
    return redactUrlPasswords(`MCP server \`${visibleLine(this.name)}\` ${visibleLine(what)}${stderr ? `; its stderr ended with:\n${stderr}` : ""}`, url);
  }

  #setState(state: McpServerState): void {
    this.#state = state;
    this.#revision++;
  }

  #emit(event: McpServerEvent): void {
    try {
      this.#options.onEvent?.(event);
    } catch {
      // A failing listener must not break the connection.
    }
  }
}

/** True when `error` says the connection was lost while a request was waiting. */
export function isConnectionClosed(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
}

/** True when `error` is the SDK's request timeout. */
export function isRequestTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout;
}

/** Ends a client that failed to connect: a stdio child is killed at once rather than asked to exit. */
async function killClient(client: Client, transport: Transport): Promise<void> {
  if (transport instanceof StdioClientTransport && transport.pid !== null) {
    try {
      process.kill(transport.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  await client.close().catch(() => undefined);
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message())), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The first problem of an invalid tool definition: where, and what. */
function firstIssue(error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> }): string {
  const issue = error.issues[0];
  if (issue === undefined) return "not a tool definition";
  return issue.path.length === 0 ? issue.message : `${issue.path.map(String).join(".")}: ${issue.message}`;
}
