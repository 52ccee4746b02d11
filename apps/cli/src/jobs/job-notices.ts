/**
 * Telling the model when a background job ended: the notices the jobs keep
 * ride along with the next tool result of a running turn, or with the next
 * prompt when the agent is idle (as hook context, after the session's own
 * hooks' context).
 */
import type { SoulHooks } from "@kosong/soul/hooks";
import type { BackgroundJobs } from "./background-jobs.js";

/** `hooks` with the jobs' end notices added to tool results and prompts. */
export function withJobNotices(hooks: SoulHooks, jobs: BackgroundJobs): SoulHooks {
  const add = <T extends { additionalContext?: string } | void>(outcome: T): T | { additionalContext: string } => {
    const notices = jobs.takeNotices();
    if (notices.length === 0) return outcome;
    const context = [outcome ? outcome.additionalContext : undefined, ...notices].filter(Boolean).join("\n");
    return { ...(outcome ?? {}), additionalContext: context };
  };
  return {
    ...hooks,
    postToolUse: async (input) => add(await hooks.postToolUse?.(input)),
    postToolUseFailure: async (input) => add(await hooks.postToolUseFailure?.(input)),
    userPromptSubmit: async (input) => add(await hooks.userPromptSubmit?.(input)),
  };
}
