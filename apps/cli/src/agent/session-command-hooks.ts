/**
 * The command hooks of one CLI session: the user's and (when trusted) the
 * workspace's hooks, run with the Shell's environment and sandbox,
 * fires SessionStart (its context joins the first prompt) and, at the end,
 * SessionEnd.
 */
import type { SoulHooks, SubagentInput } from "@kosong/soul/hooks";
import { commandHooks, type HookSessionInfo } from "../hooks/command-hooks.js";
import type { HookDefinition } from "../hooks/hook-definition.js";
import type { CommandSandbox } from "../sandbox/command-sandbox.js";

/** Options of {@link openSessionHooks}. */
export interface SessionCommandHooksOptions {
  cwd: string;
  sandbox: CommandSandbox | null;
  /** The Shell tool's environment (credentials removed). */
  shellEnv: Record<string, string>;
  warn: (line: string) => void;
  /** The hooks to run (the user's, and the trusted workspace's). */
  definitions: readonly HookDefinition[];
  info: HookSessionInfo;
  source: "startup" | "resume";
}

/** A session's hooks: the soul's, the subagent events (for the code that runs subagents), and `end()` to fire SessionEnd. */
export interface SessionCommandHooks {
  soul: SoulHooks;
  /** Fires SubagentStart / SubagentStop (their notices go to `warn`). */
  subagent(event: "start" | "stop", input: SubagentInput): Promise<void>;
  end(): Promise<void>;
}

/** Fires SessionStart and returns the soul's hooks. */
export async function openSessionHooks(options: SessionCommandHooksOptions): Promise<SessionCommandHooks> {
  const { cwd, warn, definitions } = options;
  if (definitions.length === 0) return { soul: {}, subagent: async () => undefined, end: async () => undefined };
  const env = { ...options.shellEnv, CLAUDE_PROJECT_DIR: cwd, KOSONG_PROJECT_DIR: cwd };
  const { soul, host } = commandHooks(definitions, { cwd, env, sandbox: options.sandbox }, options.info);
  const started = await host.sessionStart?.({ source: options.source });
  for (const line of started?.warnings ?? []) warn(line);
  let startContext = started?.additionalContext;
  const submit = soul.userPromptSubmit;
  // SessionStart's context reaches the model with the first prompt.
  const withStart: SoulHooks = startContext
    ? {
        ...soul,
        async userPromptSubmit(input) {
          const outcome = submit ? await submit(input) : undefined;
          const context = [startContext, outcome?.additionalContext].filter(Boolean).join("\n");
          startContext = undefined;
          return { ...outcome, additionalContext: context };
        },
      }
    : soul;
  return {
    soul: withStart,
    async subagent(event, input) {
      const outcome = await (event === "start" ? host.subagentStart : host.subagentStop)?.(input);
      for (const line of outcome?.warnings ?? []) warn(line);
    },
    async end() {
      const ended = await host.sessionEnd?.({ reason: "exit" });
      for (const line of ended?.warnings ?? []) warn(line);
    },
  };
}
