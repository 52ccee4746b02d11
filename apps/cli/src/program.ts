/**
 * The command line of `kosong`: every flag, command and environment variable
 * (documented in `--help`), parsed with commander. The modes behind it are
 * imported only when they run, so `--help` loads nothing else (the entry
 * answers `--version` alone itself, see `version.ts`).
 */
import { Command, Option } from "commander";
import { ExitCode } from "./cli-error.js";
import { compactionNames, fileRestoreModes, outputFormats, providerNames, thinkingEfforts } from "./config/setting-values.js";
import type { SettingFlags } from "./config/settings.js";
import { sandboxModes } from "./sandbox/sandbox-settings.js";
import { type ProcessIo, processIo } from "./process-io.js";
import { versionFlags, versionText } from "./version.js";

/** The options of the main command, as commander parses them. */
export interface MainOptions extends Omit<SettingFlags, "thinking"> {
  /** An effort, true for `--thinking` alone (kimi-cli's switch), false for `--no-thinking`. */
  thinking?: string | boolean;
  print?: string;
  wire?: boolean;
  workDir?: string;
  session?: string;
  continue?: boolean;
  /** An id, or true for `--resume` without one (pick a session). */
  resume?: string | true;
  resumeFile?: string;
}

const environmentHelp = `
Environment:
  OPENAI_API_KEY        key of the openai and openai-responses providers
  OPENAI_BASE_URL       base URL of an OpenAI-compatible server (with /v1)
  ANTHROPIC_API_KEY     key of the anthropic provider (ANTHROPIC_BASE_URL: its base URL)
  KIMI_API_KEY          key of the kimi provider (KIMI_BASE_URL: its base URL)
  KOSONG_HOME           where config and sessions live (default ~/.kosong)
  KOSONG_PROVIDER, KOSONG_MODEL, KOSONG_BASE_URL, KOSONG_API_KEY, KOSONG_MAX_CONTEXT_SIZE,
  KOSONG_THINKING, KOSONG_COMPACTION, KOSONG_COMPACT_MODEL, KOSONG_SCRIPT
                        defaults for the flags of the same names (KOSONG_API_KEY: any provider's key)
  KOSONG_YOLO, KOSONG_DMAIL
                        1/true to turn on --yolo / --dmail
  KOSONG_STORE_URL      default for --store (conversations in PostgreSQL)
  KOSONG_FIRST_BYTE_TIMEOUT, KOSONG_IDLE_TIMEOUT, KOSONG_SHELL_TIMEOUT, KOSONG_MAX_TIME
                        defaults for the timeout flags, in seconds (0: no limit)
  MCP_TIMEOUT           milliseconds an MCP server has to start and list its tools (default 30000; Claude Code's variable)
  KOSONG_FILE_RESTORE, KOSONG_FILE_RESTORE_MAX_SIZE
                        defaults for --file-restore and --file-restore-max-size
  KOSONG_SANDBOX        default for --sandbox
  KOSONG_TRUST_WORKSPACE
                        1/true to turn on --trust-workspace
  NO_COLOR              plain output without colours (also when output is not a terminal; FORCE_COLOR forces them)
  KOSONG_DEBUG          print the stack of unexpected errors

Config file ($KOSONG_HOME/config.toml, or config.json), every key optional:
  provider, model, base_url, api_key, max_context_size, thinking, compaction,
  compact_model, yolo, dmail, project_context, mcpServers (MCP servers, as in Claude's and kimi-cli's config),
  first_byte_timeout, idle_timeout, shell_timeout, max_time, file_restore, file_restore_max_size,
  session_retention ("30d", or a table: older_than, keep; old sessions pruned at start-up),
  sandbox ("on", "off", "auto-allow", or a table: mode, network = false / true / ["host", ...]),
  [[hooks]] (event, command, matcher, timeout: commands run on PreToolUse, PostToolUse, Stop, ...; see the README)
  Precedence: flags > KOSONG_* environment > config file > defaults.

Local servers (no key needed with a localhost base URL):
  kosong --base-url http://localhost:11434/v1 --model llama3.2     (Ollama)
  kosong --base-url http://localhost:8080/v1 --model local         (llama.cpp)
  kosong --base-url http://localhost:8000/v1 --model <model>       (vLLM)

Exit codes:
  0 done · 1 error (message on stderr) · 2 usage, config or missing credentials · 130 aborted
  143 / 129 interactive session ended by SIGTERM / SIGHUP (the running turn aborted, the session closed)

Examples:
  kosong                                  interactive session in this directory
  kosong -p "summarise README.md"         one turn, answer on stdout
  echo "list the files" | kosong -p - --output-format stream-json
  kosong --continue                       pick up the latest session of this directory
  kosong demo                             an offline, scripted tour (no key needed)
  kosong sessions prune --older-than 30d  remove sessions unused for 30 days (--dry-run lists them)
  kosong export <id> -o chat.html         a session as a self-contained page (md, html, jsonl)
  kosong import context.jsonl             a kimi-cli session or an export as a new session`;

/**
 * Builds the `kosong` program; each command imports its mode only when it
 * runs and hands its exit code to `exit`. The main command (interactive and
 * print mode) runs on `io`; help and parse errors are written to it.
 */
export function buildProgram(io: ProcessIo = processIo, exit: (code: number) => void = (code) => (process.exitCode = code)): Command {
  const program = new Command("kosong")
    .description("kosong: a coding agent in your terminal, built on @kosong/soul.\nWithout -p it starts an interactive session (an optional first prompt may follow).")
    .version(versionText, versionFlags, "print the version and exit")
    .helpOption("-h, --help", "show this help")
    .argument("[prompt...]", "first prompt of an interactive session")
    .option("-p, --print <prompt>", 'run one turn with this prompt, print the answer and exit ("-" reads the prompt from stdin)')
    .addOption(new Option("--output-format <format>", "print mode output: the answer as text, or every event as a JSON line").choices(outputFormats))
    .addOption(new Option("--provider <name>", "the model API (default: openai, or the one whose key is set)").choices(providerNames))
    .option("-m, --model <name>", "model name (default per provider, e.g. gpt-4.1, claude-sonnet-4-5)")
    .option("--base-url <url>", "API base URL, e.g. a local OpenAI-compatible server")
    .option("--max-context-size <tokens>", "the model's context window in tokens (drives compaction and the status bar)")
    .addOption(new Option("--thinking [effort]", "thinking effort (alone: medium)").choices(thinkingEfforts))
    .option("--no-thinking", "thinking off")
    .addOption(new Option("--compaction <strategy>", "compaction strategy (default: simple, or a resumed session's last /strategy)").choices(compactionNames))
    .option("--compact-model <name>", "a model of the same provider for compaction (used by --compaction auto)")
    .option("--script <file>", "echo-DSL responses for --provider scripted (JSON array, or responses separated by --- lines)")
    .option("--yolo", "approve every tool call without asking (print mode refuses approval-needing tools without it); Shell commands stay in the sandbox")
    .addOption(new Option("--sandbox <mode>", "run Shell commands in a sandbox (Linux, bubblewrap): on (default where available), auto-allow (a sandboxed command runs without asking), off").choices(sandboxModes))
    .option("--plan", "start in plan mode: only tools that read work until you approve the agent's plan (Shift-Tab or /plan switches it)")
    .option("--trust-workspace", "trust this workspace for this run without asking: its hooks run, its .mcp.json servers start and its permission rules apply; print mode, --wire and acp never use them otherwise")
    .option("--answer <question=answer>", "print mode: answer AskUserQuestion's question (its text or header) with this (repeatable)", (pair: string, pairs: string[] = []) => [...pairs, pair])
    .option("--default-answer <answer>", 'print mode: the answer of the other questions: "first" (the first option) or a text')
    .option("--dmail", "give the agent the SendDMail tool (it can send a message back to a checkpoint)")
    .option("-c, --continue", "continue the most recent session of this directory")
    .option("-r, --resume [id]", "resume a session by id (or a unique id prefix); without an id, pick one from a list; see `kosong sessions`")
    .option("--resume-file <path>", "resume a kimi-cli context.jsonl file (written to in place)")
    .option("--session <id>", "resume the session with this id, or start one with it (kimi-cli's --session)")
    .option("-w, --work-dir <dir>", "the working directory (default: the current one)")
    .option("--wire", "serve kimi-cli's wire protocol (JSON-RPC on stdin/stdout) for @moonshot-ai/kimi-agent-sdk and other wire clients")
    .addOption(new Option("--file-restore <mode>", "which files the agent changes /revert, /edit, /restore and a D-Mail put back: none, those WriteFile and EditFile write, or those and what Shell commands change (default: scan)").choices(fileRestoreModes))
    .option("--no-file-restore", "revert only the conversation (as --file-restore off)")
    .option("--file-restore-max-size <size>", "files larger than this are not journaled, and a revert says so: bytes, or with a unit, e.g. 512KiB, 10MiB (default 10MiB)")
    .option("--no-project-context", "leave AGENTS.md files and the environment block out of the system prompt")
    .option("--mcp-config-file <file>", 'MCP servers to use, from a JSON file {"mcpServers": {...}} (repeatable; see /mcp)', (file: string, files: string[] = []) => [...files, file])
    .option("--store <url>", "keep the conversations of saved sessions in PostgreSQL (a postgresql:// connection string) instead of files")
    .option("--first-byte-timeout <seconds>", "give up on (and retry) a model response that has not started after this long (default 120, 0: no limit)")
    .option("--idle-timeout <seconds>", "give up on (and retry) a model response stream silent this long (default 300, 0: no limit)")
    .option("--max-time <seconds>", "print mode: stop the whole run after this long, exit 1 (default 900, 0: no limit)")
    .option("--shell-timeout <seconds>", "stop a Shell tool call running this long; the model reads an error (default 660, 0: no limit)")
    .option("--compaction-threshold <share>", "compact when the context reaches this share of the window, e.g. 0.7 or 70% (default 0.85, or earlier for the answer's reserve)")
    .addHelpText("after", environmentHelp)
    .showHelpAfterError("(kosong --help lists every flag)")
    .exitOverride()
    .configureOutput({ writeOut: (text) => void io.stdout.write(text), writeErr: (text) => void io.stderr.write(text) })
    .action(async (words: string[], options: MainOptions) => {
      const { runMain } = await import("./run-main.js");
      exit(await runMain(words.join(" "), options, io));
    });

  program
    .command("demo")
    .description("an offline, scripted session on the real agent loop, files and tools in a temporary folder (no key needed)")
    .option("--fast", "no pauses (for scripts and tests)")
    .exitOverride()
    .action(async (options: { fast?: boolean }) => {
      const { runDemo } = await import("./demo/run-demo.js");
      exit(await runDemo({ fast: options.fast ?? false }));
    });

  program
    .command("acp")
    .description("serve kosong as an ACP agent on stdin/stdout (Zed and other ACP editors); provider flags go before `acp`")
    .exitOverride()
    .action(async (_options: object, command: Command) => {
      const { runAcp } = await import("./run-main.js");
      exit(await runAcp(command.optsWithGlobals<MainOptions>()));
    });

  program
    .command("export")
    .description("write a saved session's conversation as Markdown, a self-contained HTML page or JSONL (secrets of the environment replaced); to stdout, or -o FILE")
    .argument("<session>", "the session's whole id (see `kosong sessions`)")
    .addOption(new Option("--format <format>", "md, html or jsonl (default: from -o's extension, else md)").choices(["md", "html", "jsonl"]))
    .option("-o, --output <file>", "write to this new file (never overwritten)")
    .exitOverride()
    .action(async (id: string, _options: object, command: Command) => {
      const { runExport } = await import("./export/export-command.js");
      exit(await runExport(id, command.optsWithGlobals()));
    });

  program
    .command("import")
    .description("make a new session of this directory from a kimi-cli context.jsonl or a kosong export (md, html, jsonl)")
    .argument("<file>", "the file to import")
    .exitOverride()
    .action(async (file: string, _options: object, command: Command) => {
      const { runImport } = await import("./export/export-command.js");
      exit(await runImport(file, command.optsWithGlobals()));
    });

  const sessions = program
    .command("sessions")
    .description("list the saved sessions: id, directory, conversation size, size on disk, last used, first prompt (with --store, also those only in PostgreSQL)")
    .exitOverride()
    .action(async (_options: object, command: Command) => {
      const { runSessionsCommand } = await import("./sessions/print-sessions.js");
      const { storeUrl } = await import("./sessions/store-sessions.js");
      exit(await runSessionsCommand(storeUrl(command.optsWithGlobals<{ store?: string }>().store, process.env)));
    });
  sessions
    .command("prune")
    .description("remove saved sessions whole (rotations, file journal, subagents; with --store their conversations in PostgreSQL too)")
    .option("--older-than <age>", "remove sessions last used longer ago than this: 30d, 12h, 2w (units s, m, h, d, w)")
    .option("--keep <n>", "keep the n most recently used sessions whatever their age")
    .option("--dry-run", "only list what would be removed")
    .exitOverride()
    .action(async (_options: object, command: Command) => {
      const { runPrune } = await import("./sessions/prune-command.js");
      exit(await runPrune(command.optsWithGlobals()));
    });

  return program;
}

/** The exit code for a commander parse outcome (help and version are success). */
export function commanderExitCode(code: string): number {
  return code === "commander.helpDisplayed" || code === "commander.version" || code === "commander.help" ? ExitCode.ok : ExitCode.usage;
}
