/**
 * One agent session of the CLI: the saved session it runs in (new,
 * continued, resumed, or a kimi-cli file), its checkpointed Context, the
 * project context of its system prompt, its tools and the Soul over them.
 */
import { realpath } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { checkpointMarkerId } from "@kosong/context/records";
import { type CallableTool, extractText, redactUrlPasswords, SimpleToolset, type Toolset } from "@kosong/core";
import type { McpServers, McpToolset } from "@kosong/mcp";
import { Approval, Context, defaultSoulConfig, FileRegistry, SendDMail, Soul, type ContextRestoreReport } from "@kosong/soul";
import { Recall } from "@kosong/soul/recall";
import { FileJournal, nodeWorkspaceFiles } from "@kosong/workspace";
import { CliError } from "../cli-error.js";
import type { Settings } from "../config/settings.js";
import { type ReadSettingsFile, SettingsFileReads } from "../config/settings-file-reads.js";
import { formatContextBlocks, loadProjectContext, type ProjectContext } from "../project/project-context.js";
import { buildSystemPrompt } from "../project/system-prompt.js";
import { visibleControls } from "../render/visible-controls.js";
import { createProvider, type Providers } from "../providers/create-provider.js";
import { CheckpointTimes } from "../sessions/checkpoint-times.js";
import { observeSoulEvent } from "./observe-soul-event.js";
import { createSession, exactSession, findSession, latestSession, openOrCreateSession, firstPromptNotRecorded, recordFirstPrompt, recordStoredSize, removeSession, type SessionInfo, secureSessionFiles } from "../sessions/session-store.js";
import { openStoredConversation, type StoredConversation } from "../sessions/stored-conversation.js";
import { type CommandSandbox, openCommandSandbox } from "../sandbox/command-sandbox.js";
import { agentFolders, loadAgentTypes } from "../subagents/agent-files.js";
import { type SubagentHooks, Subagents, type SubagentsOptions } from "../subagents/subagents.js";
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
import { PlanMode, planModeRefusals, planModeToolset } from "../plan/plan-mode.js";
import { SetTodoList } from "../todo/set-todo-list.js";
import { TodoKeepingCompaction } from "../todo/todo-keeping-compaction.js";
import { createCompaction } from "./create-compaction.js";
import { withFirstPromptHook } from "./first-prompt-hook.js";
import { workspaceMcpSources } from "../project/workspace-mcp-file.js";
import { type PermissionRules, sessionPermissionRules } from "../permissions/permission-rules.js";
import { withPermissionRules } from "../permissions/permission-toolset.js";
import { openSessionHooks, type SessionCommandHooks } from "./session-command-hooks.js";
import { hooksToRun, readSessionHooks } from "../hooks/session-hooks.js";
import { type AskWorkspaceTrust, decideWorkspaceTrust, trustWorkspace } from "../hooks/workspace-trust.js";
import { readWorkspaceOffer } from "../project/workspace-offer.js";
import { SwitchableCompaction } from "./switchable-compaction.js";
import { startupMark } from "../startup-marks.js";

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
  /** The environment the session was opened with: provider keys for `/model`, secrets `/export` hides. */
  env: NodeJS.ProcessEnv;
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
   * revert to it (the soul's `Reverted` events do it, see `observeSoulEvent`;
   * `/revert` calls it). Returns a line to show, or null when none was detached.
   */
  afterRevert(checkpoint: number): Promise<string | null>;
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
  /**
   * Stores the system prompt in a new session's conversation file now,
   * instead of with the first turn's first write: the interactive mode calls
   * it while the user types, so that the first turn appends to a file that is
   * open and written already, as much as any later turn (one write and one
   * fsync before its request, not two). Does nothing for a conversation that
   * has records, for `--resume-file` and with `--store`. Never rejects (the
   * first turn writes the prompt then).
   */
  storeSystemPrompt(): Promise<void>;
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
  /** The environment: the Shell tool's and the MCP servers' come from it (credentials removed), the user's hooks from its HOME (default: the process's). */
  env?: NodeJS.ProcessEnv;
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
  /**
   * Asks the user to trust what the workspace brings (hooks, `.mcp.json`
   * servers, permission rules: interactive mode); without it they act only
   * when trusted before or with --trust-workspace.
   */
  askWorkspaceTrust?: AskWorkspaceTrust;
  /** Told how far reading the conversation got (bytes read, bytes in all) while the session opens. */
  openProgress?: (done: number, total: number) => void;
}

/** Opens the session, restores its conversation and builds the Soul. */
export async function openAgentSession(options: OpenSessionOptions): Promise<AgentSession> {
  const { settings, providers, choice } = options;
  const warn = options.warn ?? warnOnStderr;
  const env = options.env ?? process.env;
  const cwd = await realpath(options.cwd ?? process.cwd());
  // The project context (AGENTS.md files, git's branch and status) loads while the session file is chosen and restored.
  const projectContextLoading = settings.projectContext ? loadProjectContext(cwd) : Promise.resolve(null);
  projectContextLoading.catch(() => undefined);
  const { session, contextFile } = await chooseSession(settings.home, cwd, choice);
  const stored = settings.store === null ? null : await openStoredConversation(settings.store, session);
  // The sandbox opens while the conversation and the project context load (bwrap's trial start waits for its first use).
  const sandboxOpening = startSandbox(options, cwd, session, contextFile, warn);
  const conversation = openConversation(settings, cwd, session, contextFile, stored, options.openProgress);
  const { context } = conversation;
  const restoreReport = await context.restore().catch(async (error: unknown) => {
    await sandboxOpening.drop();
    await conversation.close();
    throw error;
  });
  startupMark("session-file");
  let mcp: McpServers | null = null;
  // Background jobs (Shell's run_in_background) keep their logs in the session folder (beside a --resume-file file as <name>.jobs).
  const jobs = new BackgroundJobs({ dir: session ? path.join(session.dir, "jobs") : `${contextFile}.jobs` });
  let mcpReady = Promise.resolve();
  try {
    const projectContext = await projectContextLoading;
    startupMark("project-context");
    for (const line of projectContext?.skipped ?? []) warn(line);
    const files = new FileRegistry();
    const workspace = await openWorkspace(cwd, files, options.host);
    const opened = await sandboxOpening.opening;
    const sandbox: CommandSandbox | null = opened.sandbox;
    if (opened.notice !== null) warn(opened.notice);
    const extensions = await loadPromptExtensions(cwd, settings.home, warn);
    // What the workspace brings (hooks, .mcp.json servers, permission rules) acts only once trusted: one question covers all of it.
    // Claude Code's settings files give hooks and permission rules: read and parsed once for both.
    const { read } = new SettingsFileReads();
    const hookFiles = await readSessionHooks({ settings, cwd, home: env.HOME ?? os.homedir(), warn, read });
    const offer = await readWorkspaceOffer(cwd, hookFiles.project, warn, read);
    const trust = await decideWorkspaceTrust(settings.home, cwd, offer, settings.trustWorkspace, options.askWorkspaceTrust);
    // Loaded below (after the tools): FetchURL reads them for each host it is led to.
    let permissionRules: PermissionRules | null = null;
    // The providers in use: `useProviders` (/model) replaces them, and the compaction strategies and the children follow.
    let current = providers;
    // The Agent tool reaches the soul of the moment (`/model` replaces it) and the session's hooks (opened once the tools are) through these.
    let currentSoul: Soul | null = null;
    let hooks: SessionCommandHooks | null = null;
    const shellEnv = childEnvironment(env, settings.shellEnvironment, [settings.apiKey]);
    const imageInput = (): ImageInput => ({ accepted: acceptsImages(settings.provider, current.main.modelName, settings.imageInput), model: current.main.modelName });
    const fetch = { allowHosts: settings.fetchAllowHosts, allowPrivate: settings.fetchAllowPrivate, limits: settings.fetchLimits, hostRule: (host: string) => permissionRules?.decide("FetchURL", { url: `http://${host}/` })?.effect ?? null };
    const tools = createAgentTools(workspace, { shellEnv, sandbox, jobs, imageInput, fetch });
    const planMode = new PlanMode(settings.plan);
    const { subagents, store, notices: subagentNotices } = await openSubagents({
      settings,
      env,
      stored,
      cwd,
      session,
      contextFile,
      context,
      tools,
      // Loaded below: a child's calls meet the same permission rules as the parent's, and the parent's plan mode as it is at each call.
      guard: (childTools) => planModeRefusals(permissionRules === null ? childTools : withPermissionRules(childTools, permissionRules), planMode),
      providers: () => current,
      soul: () => currentSoul!,
      hooks: (event, input) => hooks?.subagent(event, input) ?? Promise.resolve(),
    });
    const agentTools = [...tools, ...(extensions.skills.length > 0 ? [skillTool(extensions.skills)] : []), SetTodoList, askUserQuestionTool(() => running.questioner()), subagents.tool()];
    let toolset: Toolset;
    ({ toolset, mcp, ready: mcpReady } = await openToolset(options, cwd, agentTools, sandbox, trust.trusted, read));
    // A project rule the user adds or removes (/permissions, "always for this project") keeps a remembered trust.
    const onProjectChange = trust.remembered ? async () => trustWorkspace(settings.home, cwd, await readWorkspaceOffer(cwd, hookFiles.project, () => undefined)) : undefined;
    const ruleFiles = { workspace: cwd, userFile: settings.configPath ?? path.join(settings.home, "config.toml"), projectTrusted: trust.trusted, onProjectChange };
    permissionRules = sessionPermissionRules(settings.permissions, offer.rules, ruleFiles, warn);
    toolset = withPermissionRules(toolset, permissionRules);
    // --compaction, KOSONG_COMPACTION or the config file, else the session's last /strategy.
    const compaction = new SwitchableCompaction(settings.compaction ?? session?.compaction ?? "simple", (name) => createCompaction(name, current));
    const displayId = session?.id ?? path.basename(contextFile);
    toolset = planModeToolset(toolset, planMode);
    const agent = { name: "kosong", systemPrompt: buildSystemPrompt(projectContext, skillsPromptSection(extensions.skills)), toolset, ...(projectContext && projectContext.blocks.length > 0 && { projectContext: formatContextBlocks(projectContext.blocks) }) };
    const sessionHooks = await openSessionHooks({
      cwd,
      sandbox,
      shellEnv,
      warn,
      definitions: hooksToRun(hookFiles, trust.trusted, cwd, options.askWorkspaceTrust !== undefined, warn),
      info: { sessionId: displayId, transcriptPath: contextFile, cwd },
      source: choice.kind === "new" ? "startup" : "resume",
    });
    hooks = sessionHooks;
    const approval = new Approval({ yolo: settings.yolo });
    const checkpointTimes = await CheckpointTimes.open(session?.dir ?? null);
    // The first prompt goes in session.json as the first turn starts, whichever mode (or client) sent it.
    const firstPrompt = withFirstPromptHook(withJobNotices(sessionHooks.soul, jobs), session, warn);
    const afterRevert = (checkpoint: number) => detachAfterRevert(store, subagents, checkpoint);
    // Every mode (interactive, print, --wire, ACP) and every soul /model makes is observed here, by the soul itself.
    const observer = observeSoulEvent({ context, sandbox, checkpointTimes, afterRevert, warn });
    const soulFor = (chosen: Providers): Soul =>
      new Soul({
        agent,
        provider: chosen.main,
        context,
        config: soulConfig(chosen, settings),
        compaction: new TodoKeepingCompaction(compaction),
        approval,
        session: { id: displayId, workDir: cwd, files },
        hooks: firstPrompt.hooks,
        observer,
      });
    currentSoul = soulFor(providers);
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
      env,
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
      hooks: sessionHooks,
      jobs,
      async storeSystemPrompt() {
        if (session === null || stored !== null || context.systemPrompt !== null || context.history.length > 0 || context.nCheckpoints > 0) return;
        await context.writeSystemPrompt(agent.systemPrompt).catch(() => undefined);
      },
      async close() {
        subagents.abortAll();
        await subagents.settled();
        await jobs.closeAll();
        await sessionHooks.end();
        await mcp?.close();
        await sandbox?.close();
        await firstPrompt.settled();
        await closeConversation(conversation, session, warn);
      },
    };
    startupMark("session-open");
    return running;
  } catch (error) {
    await jobs.closeAll();
    await mcp?.close();
    await sandboxOpening.drop();
    await conversation.close();
    throw error;
  }
}

/** The soul's limits with `chosen` providers. */
function soulConfig(chosen: Providers, settings: Settings) {
  return { maxContextSize: chosen.maxContextSize, ...compactionTriggers(chosen.maxContextSize, settings.compactionThreshold), toolTimeouts: { Shell: settings.shellTimeoutMs } };
}

/**
 * Closes the conversation, then finishes the session's record: a session
 * quit before its first prompt is removed (nothing to resume, so the picker
 * does not list it); a first prompt not recorded as its turn started (the
 * write failed) is found in the history (a failed write again is told
 * through `warn`: the conversation itself is closed and kept); the size in
 * a store is recorded; and the session's files are made private.
 */
async function closeConversation(conversation: Conversation, session: SessionInfo | null, warn: (line: string) => void): Promise<void> {
  const { context } = conversation;
  const firstUser = session?.firstPrompt === null ? context.history.find((m) => m.role === "user" && checkpointMarkerId(extractText(m).trim()) === null) : undefined;
  const storedBytes = await conversation.close();
  if (!session) return;
  if (session.firstPrompt === null && context.history.length === 0 && context.checkpoints.length === 0) return removeSession(session);
  if (firstUser) await recordFirstPrompt(session, extractText(firstUser, "\n")).catch((error: unknown) => warn(firstPromptNotRecorded(error)));
  if (storedBytes !== null) await recordStoredSize(session, storedBytes);
  await secureSessionFiles(session);
}

/** A conversation opened by {@link openConversation}. */
interface Conversation {
  context: Context<FileJournal>;
  /** Closes the context, the journal and the store; with a store, resolves to its size in bytes there (null when it could not be read). */
  close(): Promise<number | null>;
}

/**
 * Starts opening the Shell tool's sandbox (none when the host runs
 * commands). kosong's config and sessions are hidden from sandboxed
 * commands, wherever this session's files are. `drop` closes it once open
 * (when opening the session failed).
 */
function startSandbox(options: OpenSessionOptions, cwd: string, session: SessionInfo | null, contextFile: string, warn: (line: string) => void) {
  const kosongPaths = [options.settings.home, ...(session ? [session.dir] : [contextFile, `${contextFile}.files`])];
  const opening = options.host?.runCommand ? Promise.resolve({ sandbox: null, notice: null }) : openCommandSandbox(options.settings.sandbox, { workspace: cwd, kosongPaths, env: options.env ?? process.env }, warn);
  opening.catch(() => undefined);
  const drop = () => opening.then((opened) => opened.sandbox?.close(), () => undefined);
  return { opening, drop };
}

/**
 * The conversation's Context over its log (the store's, or the context
 * file), with the file journal in the session folder (beside a
 * `--resume-file` file as `<name>.files`) unless file restore is off; `close`
 * closes all three.
 */
function openConversation(
  settings: Settings,
  cwd: string,
  session: SessionInfo | null,
  contextFile: string,
  stored: StoredConversation | null,
  onRestoreProgress?: (done: number, total: number) => void,
): Conversation {
  const journalDir = session ? path.join(session.dir, "files") : `${contextFile}.files`;
  const fileJournal =
    settings.fileRestore === "off"
      ? undefined
      : new FileJournal({ dir: journalDir, files: nodeWorkspaceFiles(cwd), maxFileBytes: settings.fileRestoreMaxBytes, commandScan: settings.fileRestore === "scan" ? undefined : false });
  const context = new Context(stored?.log ?? contextFile, { fileJournal, ...(onRestoreProgress && { onRestoreProgress }) });
  const close = async (): Promise<number | null> => {
    await context.close();
    await fileJournal?.close();
    const bytes = stored ? await stored.bytes().catch(() => null) : null;
    await stored?.close();
    return bytes;
  };
  return { context, close };
}

/** What {@link openSubagents} needs of the session. */
interface SubagentsSetup {
  settings: Settings;
  /** The session's environment: its HOME holds the user's agent files, its keys reach the children's models. */
  env: NodeJS.ProcessEnv;
  /** The parent's conversation in a store: the children's go there too. */
  stored: StoredConversation | null;
  cwd: string;
  session: SessionInfo | null;
  contextFile: string;
  /** The parent's conversation. */
  context: Context;
  /** The parent's tools (without `Agent`). */
  tools: CallableTool[];
  /** The session's rules over a child's toolset. */
  guard: SubagentsOptions["guard"];
  /** The providers in use now (`/model` replaces them). */
  providers(): Providers;
  /** The parent soul now. */
  soul(): Soul;
  /** Fires SubagentStart / SubagentStop. */
  hooks: SubagentHooks;
}

/**
 * The session's children: the agent kinds of the agent files, the store of
 * the children's records (in the session folder, beside a `--resume-file`
 * file as `<name>.agents`; their conversations in the parent's store when it has one), and a line per child a crash cut or agent file
 * skipped (`notices`).
 */
async function openSubagents(setup: SubagentsSetup): Promise<{ subagents: Subagents; store: SubagentStore; notices: string[] }> {
  const { settings, session, contextFile } = setup;
  const loaded = await loadAgentTypes(agentFolders(settings.home, setup.cwd, setup.env.HOME ?? os.homedir()), setup.tools.map((t) => t.name));
  const logs = setup.stored === null ? null : setup.stored.children;
  const store = new SubagentStore(session ? path.join(session.dir, "agents") : `${contextFile}.agents`, logs);
  const cut = await store.recoverCut();
  const notices = [
    ...cut.map(({ record, messages, interruptedCalls, damagedLines }) =>
      `agent ${record.id} (${record.subagent_type}) was cut while it ran: its conversation keeps ${messages} messages${interruptedCalls > 0 ? `, ${interruptedCalls} tool call(s) answered as interrupted` : ""}${damagedLines > 0 ? `, ${damagedLines} damaged line(s) skipped` : ""}; resume it with its id`,
    ),
    ...loaded.notes,
  ];
  const subagents = new Subagents({
    store,
    types: loaded.types,
    tools: setup.tools,
    guard: setup.guard,
    provider: () => setup.providers().main,
    fastProvider: () => setup.providers().compact ?? setup.providers().main,
    providerFor: (model) => createProvider(settings, model, setup.env),
    soul: setup.soul,
    context: setup.context,
    maxContextSize: setup.providers().maxContextSize,
    prices: settings.prices,
    hooks: setup.hooks,
  });
  return { subagents, store, notices };
}

/** After a revert to `checkpoint`, detaches the children of it and later; a line to show, or null when none was detached. */
async function detachAfterRevert(store: SubagentStore, subagents: Subagents, checkpoint: number): Promise<string | null> {
  const changed = await store.detachFrom(checkpoint, subagents.running);
  if (changed.length === 0) return null;
  const what = (r: (typeof changed)[number]) => `${r.id} (${r.subagent_type})${r.status === "detached" ? "" : ` back to its turn ${r.turns.length}`}`;
  return `detached ${changed.length === 1 ? "agent" : "agents"} ${changed.map(what).join(", ")}: the revert went back past ${changed.length === 1 ? "its call" : "their calls"} (each conversation kept as a rotation)`;
}

/**
 * The agent's toolset: `tools` (its own, with `Agent`), Recall, SendDMail
 * when D-Mail is on, the MCP servers' tools (the workspace's `.mcp.json` when `trusted`, then
 * the configured ones; `.mcp.json` through `read`, the start's reads the trust
 * question saw), then the host's MCP tools. `mcp` is the servers
 * started here (closing them is the session's); `ready` resolves once they
 * are all connected or failed (in the background with `mcpProgress`).
 */
async function openToolset(options: OpenSessionOptions, cwd: string, tools: CallableTool[], sandbox: CommandSandbox | null, trusted: boolean, read: ReadSettingsFile): Promise<{ toolset: Toolset; mcp: McpServers | null; ready: Promise<void> }> {
  const { settings } = options;
  const warn = options.warn ?? warnOnStderr;
  // Recall brings back what a compaction took out (the soul leaves pointers to it when Recall is offered).
  let toolset: Toolset = new SimpleToolset(settings.dmail ? [...tools, Recall, SendDMail] : [...tools, Recall]);
  let mcp: McpServers | null = null;
  let ready = Promise.resolve();
  // Claude Code's `.mcp.json` first: the config file and --mcp-config-file override its servers.
  const mcpSources = [...(await workspaceMcpSources(cwd, trusted, warn, read)), ...settings.mcpSources];
  if (mcpSources.length > 0) {
    const { openSessionMcp } = await import("./mcp-tools.js");
    ({ mcp, toolset, ready } = await openSessionMcp(mcpSources, cwd, toolset, warn, sandbox, options.env ?? process.env, options.mcpProgress, settings.mcpStartTimeoutMs));
  }
  if (options.mcpTools) {
    try {
      const { withMcpTools } = await import("@kosong/mcp");
      toolset = withMcpTools(toolset, options.mcpTools);
    } catch (error) {
      await mcp?.close();
      throw error;
    }
  }
  return { toolset, mcp, ready };
}

/** Writes a warning as a `kosong:` line on stderr; it may quote a server, so its control characters are shown, not obeyed, and passwords of URLs are hidden. */
export function warnOnStderr(line: string): void {
  warnOn(process.stderr)(line);
}

/** Writes warnings as {@link warnOnStderr} does, on `stream`. */
export function warnOn(stream: NodeJS.WritableStream): (line: string) => void {
  return (line) => void stream.write(`kosong: ${visibleControls(redactUrlPasswords(line), { oneLine: true })}\n`);
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
