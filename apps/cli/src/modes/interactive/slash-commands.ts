/**
 * The slash commands of the interactive mode: each a name, a usage line, a
 * one-line help and what it does to the session.
 */
import path from "node:path";
import { extractText } from "@kosong/core";
import { exportFormats, exportSession, writeExport } from "../../export/export-session.js";
import { compactionNames, type CompactionName } from "../../config/setting-values.js";
import { contextBreakdownLines } from "../../render/context-breakdown-lines.js";
import { mcpStatusLines } from "../../render/mcp-status.js";
import { formatSize, printSessions } from "../../sessions/print-sessions.js";
import { jobState } from "../../tools/task-tools.js";
import { oneLine, visibleControls } from "../../render/visible-controls.js";
import { recordCompaction } from "../../sessions/session-store.js";
import { timestamp } from "../../render/timestamp.js";
import { agentsCommand } from "../../subagents/agents-command.js";
import type { ModelList } from "../../providers/model-list.js";
import { isUserPrompt } from "../../render/user-prompt.js";
import { expandPromptCommand } from "../../extensions/prompt-extensions.js";
import { printCheckpoints } from "./checkpoint-list.js";
import { compactArguments } from "./compact-arguments.js";
import { branchTreeLines } from "../../render/branch-tree-lines.js";
import { forkSession } from "../../sessions/fork-session.js";
import { confirmFileRestore, printFileRestore } from "./file-restore-prompt.js";
import { askSideQuestion } from "./side-question.js";
import { permissionsCommand } from "./permissions-command.js";
import type { InteractiveSession } from "./interactive-session.js";

/** One slash command. */
export interface SlashCommand {
  name: string;
  /** Arguments, as shown in `/help`, e.g. `<id|label>`. */
  args?: string;
  help: string;
  run(session: InteractiveSession, args: string): Promise<void>;
}

/** Every slash command, in `/help` order. */
export const slashCommands: SlashCommand[] = [
  { name: "help", help: "list the commands and keys", run: async (s) => s.print(helpText(s)) },
  {
    name: "status",
    help: "model, context usage, session and settings",
    run: async (s) => {
      const { agent } = s;
      s.print(s.status({ tokens: true, whole: true }));
      s.print(`provider ${agent.providers.main.name} · model ${agent.providers.main.modelName} · thinking ${agent.providers.main.thinkingEffort ?? "default"}`);
      s.print(`messages ${agent.context.history.length} · checkpoints ${agent.context.nCheckpoints} · working directory ${agent.cwd}`);
      s.print(`conversation file ${agent.contextFile}`);
    },
  },
  {
    name: "context",
    help: "where the context window goes, and what the system prompt was built from",
    run: async (s) => {
      const { projectContext, context, soul } = s.agent;
      const [head, ...rows] = contextBreakdownLines(soul.status.breakdown, soul.agent.toolset.tools);
      s.print(head!);
      for (const row of rows) s.print(row);
      if (!projectContext) s.print("Project context is off (--no-project-context): the agent's instructions only.");
      else for (const block of projectContext.blocks) s.print(`<context name="${block.name}">  ${s.style.dim(`${block.content.length} characters from ${visibleControls(block.source, { oneLine: true })}`)}`);
      if (context.systemPrompt !== null && context.systemPrompt !== soul.agent.systemPrompt) {
        s.print(s.style.dim("This session keeps the system prompt stored when it started (it wins over a newly built one)."));
      }
      s.print(s.style.dim(`system prompt: ${(context.systemPrompt ?? soul.agent.systemPrompt).length} characters`));
    },
  },
  {
    name: "compact",
    args: "[from <checkpoint> [to <checkpoint>]] [instruction]",
    help: "compact the conversation now (the instruction guides the summary); from a checkpoint: only that part, the rest stays verbatim",
    run: async (s, args) => {
      const request = compactArguments(args);
      if (typeof request === "string") return s.print(request);
      await s.drive((signal) => s.agent.soul.compact(request, { signal }));
    },
  },
  {
    name: "strategy",
    args: `<${compactionNames.join("|")}>`,
    help: "choose the compaction strategy",
    run: async (s, args) => {
      if (!(compactionNames as readonly string[]).includes(args)) {
        s.print(`Strategy now: ${s.agent.compaction.choice}. Choose one of: ${compactionNames.join(", ")}.`);
        return;
      }
      s.agent.compaction.use(args as CompactionName);
      if (s.agent.session) await recordCompaction(s.agent.session, args as CompactionName);
      s.print(`Compaction strategy: ${args}`);
    },
  },
  {
    name: "checkpoints",
    args: "[all]",
    help: "the checkpoint before each prompt (all: every step's too), with the files the agent changed after each",
    run: printCheckpoints,
  },
  {
    name: "revert",
    args: "<id|label>",
    help: "go back to a checkpoint (undo with /restore)",
    run: async (s, args) => {
      if (!args) return s.print("Usage: /revert <id|label> (see /checkpoints)");
      const target = /^\d+$/.test(args) ? Number(args) : args;
      const found = s.agent.context.checkpoints.findLast((c) => (typeof target === "number" ? c.id === target : c.label === target));
      if (found && !(await confirmFileRestore(s, { checkpoint: found.id }))) return;
      const revert = await s.agent.context.revertTo(target);
      printFileRestore(s, revert.files);
      const detached = await s.agent.afterRevert(revert.checkpoint.id);
      if (detached !== null) s.print(s.style.dim(detached));
      s.print(`Reverted to checkpoint ${revert.checkpoint.id}; ${s.agent.context.history.length} messages remain. /restore ${revert.rotation.n} undoes it.`);
      s.print(s.status());
    },
  },
  {
    name: "edit",
    args: "<message#>",
    help: "rewrite a past user message and rerun from there",
    run: async (s, args) => {
      const history = s.agent.soul.history;
      const users = history.flatMap((m, i) => (isUserPrompt(m) ? [i] : []));
      if (!/^\d+$/.test(args) || !users.includes(Number(args))) {
        if (users.length === 0) return s.print("No user message to edit yet.");
        s.print("Usage: /edit <message#>. Your messages:");
        for (const i of users) s.print(`  #${i}  ${oneLine(extractText(history[i]!), 70)}`);
        return;
      }
      const index = Number(args);
      // A rewrite reverts to the last checkpoint before the message.
      const at = s.agent.context.history.indexOf(history[index]!);
      const checkpoint = s.agent.context.checkpoints.findLast((c) => c.messageCount <= at);
      if (checkpoint && !(await confirmFileRestore(s, { checkpoint: checkpoint.id }))) return;
      s.print(s.style.dim("Edit the message and press Enter (Ctrl-C cancels):"));
      const edited = await s.input.readLine("edit› ", { initial: extractText(history[index]!), remember: false });
      if (edited.kind !== "line" || !edited.text.trim()) return s.print("Edit cancelled.");
      await s.drive((signal) => s.agent.soul.rewrite(index, edited.text, { signal }));
    },
  },
  {
    name: "clear",
    help: "start the conversation afresh (undo with /restore)",
    run: async (s) => {
      const rotation = await s.agent.context.clear();
      s.print(`Conversation cleared. /restore ${rotation.n} brings it back.`);
    },
  },
  {
    name: "agents",
    args: "[<id> | restore <id>]",
    help: "the agents the Agent tool ran (status, cost); one's transcript",
    run: (s, args) => agentsCommand(s.agent.subagents, args, { print: (line) => s.print(line), style: s.style }),
  },
  {
    name: "export",
    args: "[md|html|jsonl] [<file>]",
    help: "write this conversation to a file (default kosong-<id>.md here; secrets of the environment replaced)",
    run: async (s, args) => {
      const session = s.agent.session;
      if (!session) return s.print("/export works on saved sessions (not --resume-file).");
      const words = args.trim().split(/\s+/).filter(Boolean);
      const format = exportFormats.find((f) => f === words[0]) ?? "md";
      const file = (exportFormats.some((f) => f === words[0]) ? words.slice(1) : words).join(" ") || `kosong-${session.id}.${format}`;
      const exported = await exportSession(session, format, { store: s.agent.settings.store, env: s.agent.env, apiKey: s.agent.settings.apiKey });
      const beside = await writeExport(path.resolve(s.agent.cwd, file), exported, format);
      s.print(`Exported to ${visibleControls(path.resolve(s.agent.cwd, file), { oneLine: true })}${beside === null ? "" : `, ${visibleControls(beside, { oneLine: true })}`}.`);
    },
  },
  {
    name: "tasks",
    help: "the background jobs Shell started (state, output size, log file)",
    run: async (s) => {
      const jobs = s.agent.jobs.list();
      if (jobs.length === 0) s.print("No background jobs in this session.");
      for (const job of jobs) s.print(`${visibleControls(jobState(job), { oneLine: true })}  ${s.style.dim(`${formatSize(job.outputBytes)} of output, ${job.logFile}`)}`);
    },
  },
  {
    name: "rotations",
    help: "earlier versions kept by reverts, clears, edits and compactions",
    run: async (s) => {
      const rotations = await s.agent.context.rotations();
      if (rotations.length === 0) s.print("No rotations yet.");
      for (const r of rotations) s.print(`${r.n}  ${timestamp(r.mtimeMs)}  ${r.size} bytes  ${s.style.dim(r.location)}`);
    },
  },
  {
    name: "restore",
    args: "<n>",
    help: "make rotation n the conversation again (the current one is kept too)",
    run: async (s, args) => {
      if (!/^\d+$/.test(args)) return s.print("Usage: /restore <n> (see /rotations)");
      await switchToRotation(s, Number(args), "rotation");
    },
  },
  {
    name: "btw",
    args: "<question>",
    help: "ask a side question: answered from the conversation so far, with no tools, leaving it unchanged (the answer can be kept as a branch)",
    run: async (s, args) => {
      if (!args) return s.print("Usage: /btw <question>");
      await askSideQuestion(s, args);
    },
  },
  {
    name: "tree",
    args: "[n]",
    help: "the branches left by reverts, D-Mails, edits, clears, compactions and /btw; /tree n switches to branch n (the current one is kept as a branch)",
    run: async (s, args) => {
      if (!args) {
        const branches = await s.agent.context.branches();
        s.print(branchTreeLines(branches, s.style, s.agent.settings.store === null ? "byte" : "record", s.out.columns ?? 80).join("\n"));
        s.print(s.style.dim(branches.length > 1 ? "/tree <n> switches to branch n; /fork copies the current branch into a new session." : "No other branch yet."));
        return;
      }
      if (!/^\d+$/.test(args)) return s.print("Usage: /tree [n] (see /tree)");
      await switchToRotation(s, Number(args), "branch");
    },
  },
  {
    name: "fork",
    help: "copy the current branch into a new session (this one goes on unchanged)",
    run: async (s) => {
      const { agent } = s;
      const { store } = agent.settings;
      const source = store !== null && agent.session ? { store, sessionId: agent.session.id } : { contextFile: agent.contextFile };
      const firstPrompt = agent.context.history.find((m) => m.role === "user" && !extractText(m).startsWith("<system>"));
      const forked = await forkSession(agent.settings.home, agent.cwd, source, agent.subagents.store.dir, firstPrompt ? extractText(firstPrompt, "\n") : null);
      s.print(`Forked the current branch into session ${forked.id}: kosong --resume ${forked.id} opens it. This session goes on here.`);
    },
  },
  {
    name: "sessions",
    help: "list the saved sessions",
    run: async (s) => {
      await printSessions(s.agent.settings.home, s.out);
    },
  },
  {
    name: "plan",
    help: "switch plan mode (also Shift-Tab): only tools that read work, until you approve the agent's plan",
    run: async (s) => {
      s.print(s.togglePlanMode());
      s.print(s.status());
    },
  },
  {
    name: "todo",
    help: "the agent's todo list (it travels with the conversation: a revert brings back the list of then)",
    run: async (s) => s.printTodo({ always: true }),
  },
  {
    name: "skills",
    help: "the skills the agent can load (/<skill> [request] uses one now)",
    run: async (s) => {
      const { skills, commands } = s.agent.extensions;
      if (skills.length === 0) s.print("No skills. Put one in .kosong/skills/<name>/SKILL.md (or .agents/skills, .claude/skills, ~/.kosong/skills).");
      for (const skill of skills) s.print(`  /${skill.name}  ${visibleControls(skill.description, { oneLine: true })}  ${s.style.dim(skill.shown)}`);
      if (commands.length > 0) s.print(s.style.dim(`Custom commands (/help lists them): ${commands.map((c) => `/${c.name}`).join(" ")}`));
    },
  },
  {
    name: "mcp",
    help: "the MCP servers, their state and tools",
    run: async (s) => s.print(mcpStatusLines(s.agent.mcp, s.style).join("\n")),
  },
  {
    name: "permissions",
    args: "[allow|ask|deny <Rule> | project allow|ask|deny <Rule> | remove <n>]",
    help: "the permission rules and where they come from; add one (yours, or the trusted project's) or remove one",
    run: permissionsCommand,
  },
  {
    name: "model",
    args: "[name]",
    help: "list the provider's models, or switch to one (same provider); the conversation goes on",
    run: switchModel,
  },
  {
    name: "yolo",
    help: "toggle approving every tool call without asking",
    run: async (s) => {
      s.agent.soul.approval.yolo = !s.agent.soul.approval.yolo;
      s.print(`yolo ${s.agent.soul.approval.yolo ? "on: tools run without asking" : "off: mutating tools ask first"}`);
    },
  },
  {
    name: "thinking",
    help: "toggle showing the model's thinking",
    run: async (s) => {
      s.showThinking = !s.showThinking;
      s.print(`thinking ${s.showThinking ? "shown" : "hidden"}`);
    },
  },
  {
    name: "exit",
    help: "end the session (also Ctrl-D on an empty prompt, or Ctrl-C twice)",
    run: async (s) => {
      s.exitRequested = true;
    },
  },
];

/** The models each session's provider listed, asked once per session. */
const modelLists = new WeakMap<InteractiveSession, Promise<ModelList>>();

/** `/model`: lists the models; `/model <name>` switches to a model the provider lists (any name when it lists none). */
async function switchModel(s: InteractiveSession, args: string): Promise<void> {
  const { agent } = s;
  let listing = modelLists.get(s);
  if (!listing) modelLists.set(s, (listing = import("../../providers/model-list.js").then(({ listModels }) => listModels(agent.settings, agent.env))));
  const list = await listing;
  const shown = (name: string) => visibleControls(name, { oneLine: true });
  if (!args) {
    s.print(`Model now: ${shown(agent.providers.main.modelName)} (${agent.providers.main.name}). /model <name> switches.`);
    s.print(list.from === "provider" ? `The provider's models: ${list.models.map(shown).join(", ")}` : `Configured models: ${list.models.map(shown).join(", ")} ${s.style.dim(`(${visibleControls(list.why ?? "", { oneLine: true })})`)}`);
    return;
  }
  if (list.from === "provider" && !list.models.includes(args)) {
    const close = list.models.filter((m) => m.includes(args) || args.includes(m)).slice(0, 5);
    s.print(`${s.style.yellow(`No model "${shown(args)}" at this provider;`)} the model stays ${shown(agent.providers.main.modelName)}.${close.length ? ` Did you mean ${close.map(shown).join(", ")}?` : ""} /model lists them.`);
    return;
  }
  const { createProviders } = await import("../../providers/create-provider.js");
  agent.useProviders(await createProviders({ ...agent.settings, model: args }, agent.env));
  s.print(`Model: ${shown(agent.providers.main.modelName)}${list.from === "settings" ? s.style.dim(" (not checked: the provider lists no models)") : ""}`);
  s.print(s.status());
}

/** `/restore n` and `/tree n`: makes rotation `n` the conversation (after the file-restore go-ahead), keeping the replaced one. */
async function switchToRotation(s: InteractiveSession, n: number, noun: "rotation" | "branch"): Promise<void> {
  if (!(await confirmFileRestore(s, { rotation: n }))) return;
  const restore = await s.agent.context.restoreRotation(n);
  printFileRestore(s, restore.files);
  const kept = restore.savedAs ? `; the replaced conversation is ${noun} ${restore.savedAs.n}` : "";
  s.print(`${noun === "branch" ? "Switched to branch" : "Restored rotation"} ${restore.restored.n}${kept}. ${s.agent.context.history.length} messages.`);
  s.print(s.status());
}

/** Runs the slash command on `line` (which starts with `/`). */
export async function runSlashCommand(session: InteractiveSession, line: string): Promise<void> {
  const [, name = "", args = ""] = /^\/(\S*)\s*([\s\S]*)$/.exec(line.trim()) ?? [];
  const command = slashCommands.find((c) => c.name === name);
  if (!command) {
    const prompt = await expandPromptCommand(session.agent.extensions, line).catch((error: unknown) => {
      session.printError(error);
      return "";
    });
    if (prompt === "") return;
    if (prompt !== null) return void (await session.runPrompt(prompt));
    const close = suggestions(name, session).map((c) => `/${c}`);
    session.print(`Unknown command /${name}.${close.length ? ` Did you mean ${close.join(" or ")}?` : ""} /help lists the commands.`);
    return;
  }
  try {
    await command.run(session, args.trim());
  } catch (error) {
    session.printError(error);
  }
}

/** Every name `/` completes: the built-in commands, then the custom commands and the skills. */
export function commandNames(session: InteractiveSession): string[] {
  const { commands, skills } = session.agent.extensions;
  return [...slashCommands.map((c) => c.name), ...commands.map((c) => c.name), ...skills.map((s) => s.name)];
}

/** Commands that start with `name`, else those that share its first two letters. */
function suggestions(name: string, session: InteractiveSession): string[] {
  if (!name) return [];
  const names = commandNames(session);
  const starting = names.filter((n) => n.startsWith(name));
  return starting.length > 0 ? starting : names.filter((n) => n.startsWith(name.slice(0, 2)));
}

/**
 * `/help`: each command or key with its help beside it, the help wrapped
 * at word boundaries to the terminal's width under its own column.
 */
function helpText(s: InteractiveSession): string {
  // A name wider than the column (a long list of choices) has its help on the lines under it, and is itself wrapped to the width.
  const width = Math.min(22, Math.max(...slashCommands.map((c) => `/${c.name} ${c.args ?? ""}`.length)));
  const columns = s.out.columns ?? 80;
  const entry = (name: string, help: string) => {
    const wrapped = wrapWords(help, Math.max(20, columns - width - 5)).map((line) => `  ${" ".repeat(width)}  ${s.style.dim(line)}`);
    if (name.length > width) return [...wrapWords(name, Math.max(20, columns - 2)).map((line) => `  ${line}`), ...wrapped].join("\n");
    return [`  ${name.padEnd(width)}${wrapped[0]!.slice(width + 2)}`, ...wrapped.slice(1)].join("\n");
  };
  const lines = slashCommands.map((c) => entry(`/${c.name} ${c.args ?? ""}`, c.help));
  const custom = s.agent.extensions.commands.map((c) => entry(`/${c.name} ${c.argumentHint}`, visibleControls(`${c.description} (${c.shown})`, { oneLine: true })));
  return [
    "Commands:",
    ...lines,
    ...(custom.length > 0 ? ["Custom commands:", ...custom] : []),
    "Keys:",
    entry("Enter", "send the prompt (↑/↓ browse the input history)"),
    entry("Alt+Enter, \\+Enter", "a new line in the prompt (a paste keeps its lines)"),
    entry("Enter during a turn", "queue the line: the agent reads it after the running step"),
    entry("Shift-Tab", "switch plan mode (the agent only reads, then asks you to approve its plan)"),
    entry("Tab", "complete a command, or a path (@path attaches the file)"),
    entry("Ctrl-R", "search the input history (again: an older match)"),
    entry("!command", "run a shell command here (no approval asked: you typed it; not sent to the model)"),
    entry("Ctrl-O", "show the last tool's whole output (again: the tool before it); during a turn: expand or collapse the agents' steps"),
    entry("Ctrl-C / Esc", "abort the running turn (Esc first takes a queued line back to edit)"),
    entry("Ctrl-C twice, Ctrl-D", "exit at an empty prompt"),
  ].join("\n");
}


/** `text` in lines of at most `width` characters, broken at spaces (a longer word on its own line). */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines;
}
