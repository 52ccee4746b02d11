/**
 * One agent session of the CLI: the saved session it runs in (new,
 * continued, resumed, or a kimi-cli file), its checkpointed Context, the
 * project context of its system prompt, its tools and the Soul over them.
 */
import { realpath } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { extractText, redactUrlPasswords, SimpleToolset, type Toolset } from "@kosong/core";
import type { McpServers, McpToolset } from "@kosong/mcp";
import { Approval, Context, defaultSoulConfig, FileRegistry, SendDMail, Soul, type ContextRestoreReport, type SoulEvent } from "@kosong/soul";
import { Recall } from "@kosong/soul/recall";
import { FileJournal, nodeWorkspaceFiles } from "@kosong/workspace";
import { CliError } from "../cli-error.js";
import type { Settings } from "../config/settings.js";
import { formatContextBlocks, loadProjectContext, type ProjectContext } from "../project/project-context.js";
import { buildSystemPrompt } from "../project/system-prompt.js";
import { visibleControls } from "../render/visible-controls.js";
import { createProvider, type Providers } from "../providers/create-provider.js";
import { CheckpointTimes } from "../sessions/checkpoint-times.js";
import { createSession, exactSession, findSession, latestSession, openOrCreateSession, recordFirstPrompt, recordStoredSize, removeSession, type SessionInfo, secureSessionFiles } from "../sessions/session-store.js";
import { openStoredConversation } from "../sessions/stored-conversation.js";
import { type CommandSandbox, openCommandSandbox } from "../sandbox/command-sandbox.js";
import { agentFolders, loadAgentTypes } from "../subagents/agent-files.js";
import { Subagents } from "../subagents/subagents.js";
import { SubagentStore } from "../subagents/subagent-store.js";
import { BackgroundJobs } from "../jobs/background-jobs.js";
import { withJobNotices } from "../jobs/job-notices.js";
import { createAgentTools } from "../tools/agent-tools.js";
import { childEnvironment } from "../tools/child-environment.js";
import { acceptsImages } from "../media/image-input.js";
import type { ImageInput } from "../modes/interactive/file-mentions.js";
import { openWorkspace, type Workspace, type WorkspaceHost } from "../tools/workspace.js";
import { loadPromptExtensions, type PromptExtensions } from "../extensions/prompt-extensions.js";
import { skillTool } from "../extensions/skill-tool.js";
import { skillsPromptSection } from "../extensions/skills.js";
import { askUserQuestionTool, noQuestioner, type QuestionerSource } from "../questions/ask-user-question.js";
import { PlanMode, planModeToolset } from "../plan/plan-mode.js";
import { SetTodoList } from "../todo/set-todo-list.js";
import { TodoKeepingCompaction } from "../todo/todo-keeping-compaction.js";
import { createCompaction } from "./create-compaction.js";
import { workspaceMcpSources } from "../project/workspace-mcp-file.js";
import { loadPermissionRules, type PermissionRules } from "../permissions/permission-rules.js";
import { withPermissionRules } from "../permissions/permission-toolset.js";
import { openSessionHooks, type SessionCommandHooks } from "./session-command-hooks.js";
import type { AskWorkspaceTrust } from "../hooks/session-hooks.js";
import { SwitchableCompaction } from "./switchable-compaction.js";

/** Which conversation to run in. */
export type SessionChoice =
  | { kind: "new" }
  | { kind: "continue" }
  | { kind: "resume"; id: string }
  /** The session with exactly this id, of this working directory (ACP's `session/load`). */
  | { kind: "load"; id: string }
  /** Resume the session with exactly this id, or start one with it. */
  | { kind: "session"; id: string }
  | { kind: "resume-file"; file: string };

/** A running session. */
export interface AgentSession {
  soul: Soul;
  context: Context<FileJournal>;
  /** The saved session, or null for `--resume-file` (then the file is written in place). */
  session: SessionInfo | null;
  /** The session id shown to the user (the saved session's, or the resumed file's name). */
  displayId: string;
  /** The conversation file. */
  contextFile: string;
  /** The working directory. */
  cwd: string;
  /** The working directory as the file tools see it (for `@path` mentions and completion, read through the same confinement). */
  workspace: Workspace;
  /** What the system prompt was built from (null with `--no-project-context`). */
  projectContext: ProjectContext | null;
  /** What restoring the conversation found (damaged lines, interrupted tool calls). */
  restoreReport: ContextRestoreReport;
  /** The strategy in use, switchable with `/strategy`. */
  compaction: SwitchableCompaction;
  providers: Providers;
  settings: Settings;
  /** The sandbox of Shell commands, or null when it is off or not available (a start-up notice said why). */
  sandbox: CommandSandbox | null;
  /** The skills and custom commands of the workspace and the user (`/name` runs one). */
  extensions: PromptExtensions;
  /**
   * Who answers the model's AskUserQuestion: the interactive picker, or
   * (the default) why nobody can, which the model reads as the tool's error.
   */
  questioner: QuestionerSource;
  /** Plan mode (only reading tools work) and whether it is on. */
  planMode: PlanMode;
  /** The MCP servers of the session (their tools are the agent's too), or null when none are configured. */
  mcp: McpServers | null;
  /** Resolves once every MCP server is connected or has failed (they start in the background with `mcpProgress`). */
  mcpReady: Promise<void>;
  /** The session's permission rules (user's, and the trusted project's), for `/permissions`. */
  permissionRules: PermissionRules;
  /** When each checkpoint was made, as far as this CLI saw it (kept in the session folder; in memory for `--resume-file`). */
  checkpointTimes: CheckpointTimes;
  /** The children the `Agent` tool runs, and their records. */
  subagents: Subagents;
  /** What opening found of children a crash cut (each a line to show), and of agent files skipped. */
  subagentNotices: string[];
  /**
   * Detaches the children of checkpoint `checkpoint` and later, after a
   * revert to it (`Reverted` events do it through {@link observe}; `/revert`
   * calls it). Returns a line to show, or null when none was detached.
   */
  afterRevert(checkpoint: number): Promise<string | null>;
  /**
   * Keeps what the CLI records beside the conversation of an event the soul
   * emitted: a `CheckpointCreated`'s time. Modes call it for every event.
   */
  observe(event: SoulEvent): Promise<void>;
  /**
   * Goes on with other providers (another model): a new Soul over the same
   * context, tools, approvals and strategy. Not while an operation runs.
   */
  useProviders(providers: Providers): void;
  /** Whether the model in use takes images (and its name, for the error when it does not). */
  imageInput(): ImageInput;
  /** The session's command hooks: the subagent events are fired through `hooks.subagent(...)` by whoever runs subagents. */
  hooks: SessionCommandHooks;
  /** The background jobs the Shell tool started (`/tasks` lists them); they end with the session. */
  jobs: BackgroundJobs;
  /** Ends the background jobs, closes the MCP servers and the context, and makes the session files private. */
  close(): Promise<void>;
}

/** Options of {@link openAgentSession}. */
export interface OpenSessionOptions {
  settings: Settings;
  providers: Providers;
  choice: SessionChoice;
  /** The working directory (default: the process's). */
  cwd?: string;
  /** Receives warnings: an MCP server that did not start, crashed or restarted (default: a `kosong:` line on stderr). */
  warn?: (line: string) => void;
  /** The host's file system and terminal for the tools (an editor over ACP). */
  host?: WorkspaceHost;
  /**
   * Tools of MCP servers the host connected (those an ACP editor passes),
   * added to the agent's after the configured servers' (a name in both is
   * the host's). Asked for approval as any MCP tool; closing them is the host's.
   */
  mcpTools?: McpToolset | null;
  /** Start the MCP servers in the background, with a line per server as it starts and as it is ready (interactive mode); without it the session waits for them. */
  mcpProgress?: (line: string) => void;
  /** Asks the user to trust the workspace's hooks (interactive mode); without it they run only when trusted before or with --trust-workspace. */
  askWorkspaceTrust?: AskWorkspaceTrust;
}

/** Opens the session, restores its conversation and builds the Soul. */
export async function openAgentSession(options: OpenSessionOptions): Promise<AgentSession> {
  const { settings, providers, choice } = options;
  const cwd = await realpath(options.cwd ?? process.cwd());
  const { session, contextFile } = await chooseSession(settings.home, cwd, choice);
  const stored = settings.store === null ? null : await openStoredConversation(settings.store, session);
  // The sandbox's trial start (some tens of ms) runs while the conversation and the project context load.
  // kosong's config and sessions are hidden from sandboxed commands, wherever this session's files are.
  const kosongPaths = [settings.home, ...(session ? [session.dir] : [contextFile, `${contextFile}.files`])];
  const sandboxOpening = options.host?.runCommand ? Promise.resolve({ sandbox: null, notice: null }) : openCommandSandbox(settings.sandbox, { workspace: cwd, kosongPaths, env: process.env });
  sandboxOpening.catch(() => undefined);
  const dropSandbox = () => sandboxOpening.then((opened) => opened.sandbox?.close(), () => undefined);
  // The file journal lives in the session folder (beside a --resume-file file as <name>.files).
  const journalDir = session ? path.join(session.dir, "files") : `${contextFile}.files`;
  const fileJournal =
    settings.fileRestore === "off"
      ? undefined
      : new FileJournal({ dir: journalDir, files: nodeWorkspaceFiles(cwd), maxFileBytes: settings.fileRestoreMaxBytes, commandScan: settings.fileRestore === "scan" ? undefined : false });
  const context = new Context(stored?.log ?? contextFile, { fileJournal });
  /** Closes the conversation; with a store, resolves to its size in bytes there (null when it could not be read). */
  const closeConversation = async (): Promise<number | null> => {
    await context.close();
    await fileJournal?.close();
    const bytes = stored ? await stored.bytes().catch(() => null) : null;
    await stored?.close();
    return bytes;
  };
  const restoreReport = await context.restore().catch(async (error: unknown) => {
    await dropSandbox();
    await closeConversation();
    throw error;
  });
  let mcp: McpServers | null = null;
  // Background jobs (Shell's run_in_background) keep their logs in the session folder (beside a --resume-file file as <name>.jobs).
  const jobs = new BackgroundJobs({ dir: session ? path.join(session.dir, "jobs") : `${contextFile}.jobs` });
  let mcpReady = Promise.resolve();
  try {
    const projectContext = settings.projectContext ? await loadProjectContext(cwd) : null;
    const files = new FileRegistry();
    const shellEnv = childEnvironment(process.env, settings.shellEnvironment, [settings.apiKey]);
    const workspace = await openWorkspace(cwd, files, options.host);
    const opened = await sandboxOpening;
    const sandbox: CommandSandbox | null = opened.sandbox;
    if (opened.notice !== null) (options.warn ?? warnOnStderr)(opened.notice);
    const extensions = await loadPromptExtensions(cwd, settings.home, options.warn ?? warnOnStderr);
    // Loaded below (after the tools): FetchURL reads them for each host it is led to.
    let permissionRules: PermissionRules | null = null;
    const imageInput = (): ImageInput => ({ accepted: acceptsImages(settings.provider, current.main.modelName, settings.imageInput), model: current.main.modelName });
    const tools = createAgentTools(workspace, { shellEnv, sandbox, jobs, imageInput, fetch: { allowHosts: settings.fetchAllowHosts, allowPrivate: settings.fetchAllowPrivate, limits: settings.fetchLimits, hostRule: (host) => permissionRules?.decide("FetchURL", { url: `http://${host}/` })?.effect ?? null } });
    const loaded = await loadAgentTypes(agentFolders(settings.home, cwd, os.homedir()), tools.map((t) => t.name));
    const store = new SubagentStore(session ? path.join(session.dir, "agents") : `${contextFile}.agents`);
    const cut = await store.recoverCut();
    const subagentNotices = [
      ...cut.map(({ record, messages, interruptedCalls, damagedLines }) =>
        `agent ${record.id} (${record.subagent_type}) was cut while it ran: its conversation keeps ${messages} messages${interruptedCalls > 0 ? `, ${interruptedCalls} tool call(s) answered as interrupted` : ""}${damagedLines > 0 ? `, ${damagedLines} damaged line(s) skipped` : ""}; resume it with its id`,
      ),
      ...loaded.notes,
    ];
    // The Agent tool reaches the soul of the moment (`/model` replaces it) through this.
    let currentSoul: Soul | null = null;
    const subagents = new Subagents({
      store,
      types: loaded.types,
      tools,
      provider: () => current.main,
      fastProvider: () => current.compact ?? current.main,
      providerFor: (model) => createProvider(settings, model),
      soul: () => currentSoul!,
      context,
      maxContextSize: providers.maxContextSize,
      prices: settings.prices,
    });
    const agentTools = [...tools, ...(extensions.skills.length > 0 ? [skillTool(extensions.skills)] : []), SetTodoList, askUserQuestionTool(() => running.questioner()), subagents.tool()];
    // Recall brings back what a compaction took out (the soul leaves pointers to it when Recall is offered).
    let toolset: Toolset = new SimpleToolset(settings.dmail ? [...agentTools, Recall, SendDMail] : [...agentTools, Recall]);
    // Claude Code's `.mcp.json` first: the config file and --mcp-config-file override its servers.
    const mcpSources = [...(await workspaceMcpSources(cwd, settings.trustWorkspace, options.warn ?? warnOnStderr)), ...settings.mcpSources];
    if (mcpSources.length > 0) {
      const { openSessionMcp } = await import("./mcp-tools.js");
      ({ mcp, toolset, ready: mcpReady } = await openSessionMcp(mcpSources, cwd, toolset, options.warn ?? warnOnStderr, sandbox, process.env, options.mcpProgress));
    }
    if (options.mcpTools) {
      const { withMcpTools } = await import("@kosong/mcp");
      toolset = withMcpTools(toolset, options.mcpTools);
    }
    permissionRules = await loadPermissionRules(cwd, settings.permissions, settings.configPath ?? "the config file", settings.trustWorkspace, options.warn ?? warnOnStderr);
    toolset = withPermissionRules(toolset, permissionRules);
    // The providers in use: `useProviders` (/model) replaces them, and the compaction strategies follow.
    let current = providers;
    // --compaction, KOSONG_COMPACTION or the config file, else the session's last /strategy.
    const compaction = new SwitchableCompaction(settings.compaction ?? session?.compaction ?? "simple", (name) => createCompaction(name, current));
    const displayId = session?.id ?? path.basename(contextFile);
    const planMode = new PlanMode(settings.plan);
    toolset = planModeToolset(toolset, planMode);
    const agent = { name: "kosong", systemPrompt: buildSystemPrompt(projectContext, skillsPromptSection(extensions.skills)), toolset, ...(projectContext && projectContext.blocks.length > 0 && { projectContext: formatContextBlocks(projectContext.blocks) }) };
    const hooks = await openSessionHooks({
      settings,
      cwd,
      sandbox,
      shellEnv,
      warn: options.warn ?? warnOnStderr,
      ask: options.askWorkspaceTrust,
      info: { sessionId: displayId, transcriptPath: contextFile, cwd },
      source: choice.kind === "new" ? "startup" : "resume",
    });
    const approval = new Approval({ yolo: settings.yolo });
    const checkpointTimes = await CheckpointTimes.open(session?.dir ?? null);
    const soulFor = (chosen: Providers): Soul =>
      new Soul({
        agent,
        provider: chosen.main,
        context,
        config: {
          maxContextSize: chosen.maxContextSize,
          ...compactionTriggers(chosen.maxContextSize, settings.compactionThreshold),
          toolTimeouts: { Shell: settings.shellTimeoutMs },
        },
        compaction: new TodoKeepingCompaction(compaction),
        approval,
        session: { id: displayId, workDir: cwd, files },
        hooks: withJobNotices(hooks.soul, jobs),
      });
    currentSoul = soulFor(providers);
    const afterRevert = async (checkpoint: number): Promise<string | null> => {
      const changed = await store.detachFrom(checkpoint, subagents.running);
      if (changed.length === 0) return null;
      const what = (r: (typeof changed)[number]) => `${r.id} (${r.subagent_type})${r.status === "detached" ? "" : ` back to its turn ${r.turns.length}`}`;
      return `detached ${changed.length === 1 ? "agent" : "agents"} ${changed.map(what).join(", ")}: the revert went back past ${changed.length === 1 ? "its call" : "their calls"} (each conversation kept as a rotation)`;
    };
    const running: AgentSession = {
      questioner: () => noQuestioner("in this mode (print mode, stream-json, --wire or ACP)"),
      soul: currentSoul,
      useProviders(this: AgentSession, next: Providers) {
        this.soul.release();
        current = next;
        this.providers = next;
        compaction.use(compaction.choice);
        this.soul = currentSoul = soulFor(next);
      },
      imageInput,
      subagents,
      subagentNotices,
      afterRevert,
      context,
      session,
      displayId,
      contextFile,
      cwd,
      workspace,
      projectContext,
      restoreReport,
      compaction,
      providers,
      settings,
      sandbox,
      extensions,
      planMode,
      mcp,
      mcpReady,
      permissionRules,
      checkpointTimes,
      hooks,
      jobs,
      async observe(event) {
        if (event.type === "Reverted" && event.payload.checkpoint_id !== null) {
          const line = await afterRevert(event.payload.checkpoint_id);
          if (line !== null) (options.warn ?? warnOnStderr)(line);
        }
        if (event.type !== "CheckpointCreated") return;
        // A step's checkpoint is announced before the step writes it: until then, it sits at the end of the history.
        const id = event.payload.id;
        const checkpoint = context.checkpoints.find((c) => c.id === id) ?? { id, messageCount: context.history.length };
        await checkpointTimes.record(checkpoint, new Date(), (error) => (options.warn ?? warnOnStderr)(`could not save the checkpoint times: ${error instanceof Error ? error.message : String(error)}`));
      },
      async close() {
        subagents.abortAll();
        await subagents.settled();
        await jobs.closeAll();
        await hooks.end();
        await mcp?.close();
        await sandbox?.close();
        // Modes that take prompts from a client (--wire, acp) leave the first prompt to be found here.
        const firstUser = session?.firstPrompt === null ? context.history.find((m) => m.role === "user" && !/^<system>CHECKPOINT \d+<\/system>$/.test(extractText(m).trim())) : undefined;
        const storedBytes = await closeConversation();
        if (!session) return;
        // Started and quit before a first prompt: nothing to resume, so no session is left for the picker to list.
        if (session.firstPrompt === null && context.history.length === 0 && context.checkpoints.length === 0) return removeSession(session);
        if (firstUser) await recordFirstPrompt(session, extractText(firstUser, "\n"));
        if (storedBytes !== null) await recordStoredSize(session, storedBytes);
        await secureSessionFiles(session);
      },
    };
    return running;
  } catch (error) {
    await jobs.closeAll();
    await mcp?.close();
    await dropSandbox();
    await closeConversation();
    throw error;
  }
}

/** Writes a warning as a `kosong:` line on stderr; it may quote a server, so its control characters are shown, not obeyed, and passwords of URLs are hidden. */
export function warnOnStderr(line: string): void {
  process.stderr.write(`kosong: ${visibleControls(redactUrlPasswords(line), { oneLine: true })}\n`);
}

/**
 * The soul's compaction triggers: the reserve for the answer
 * ({@link reservedTokens}), and with a threshold share, that share of the
 * window, the reserve then cut so that it does not trigger earlier.
 */
export function compactionTriggers(maxContextSize: number, threshold: number | null): { reservedContextSize: number; compactionTriggerRatio?: number } {
  const reserve = reservedTokens(maxContextSize);
  if (threshold === null) return { reservedContextSize: reserve };
  return { reservedContextSize: Math.min(reserve, Math.round(maxContextSize * (1 - threshold))), compactionTriggerRatio: threshold };
}

/** Tokens kept free for the answer: the soul's default (kimi-cli's 50k), or a quarter of a smaller window. */
export function reservedTokens(maxContextSize: number): number {
  return Math.min(defaultSoulConfig.reservedContextSize, Math.floor(maxContextSize / 4));
}

async function chooseSession(home: string, cwd: string, choice: SessionChoice): Promise<{ session: SessionInfo | null; contextFile: string }> {
  const saved = (session: SessionInfo) => ({ session, contextFile: session.contextFile });
  switch (choice.kind) {
    case "new":
      return saved(await createSession(home, cwd));
    case "continue":
      return saved(await latestSession(home, cwd));
    case "resume":
      return saved(await findSession(home, choice.id));
    case "load": {
      const found = await exactSession(home, cwd, choice.id);
      if (found === null) throw new CliError(`No session "${choice.id}" of ${cwd}.`);
      return saved(found);
    }
    case "session":
      return saved(await openOrCreateSession(home, cwd, choice.id));
    case "resume-file":
      return { session: null, contextFile: path.resolve(choice.file) };
  }
}
