/**
 * The kinds of child agent the `Agent` tool runs: the built-in `coder`,
 * `explore` and `plan`, and custom agents from markdown files (see
 * `agent-files.ts`).
 */

/** Tools that only read: what `explore`, `plan` and a read-only custom agent get. */
export const readOnlyTools = ["ReadFile", "ReadMediaFile", "ListDir", "Glob", "Grep"] as const;

/** A kind of child agent. */
export interface AgentType {
  /** What `subagent_type` names it by. */
  name: string;
  /** What the parent's model reads about it (in the Agent tool's description). */
  description: string;
  /** The child's system prompt. */
  systemPrompt: string;
  /** The tools it gets (names among the parent's, never `Agent`), or "all" of the parent's but `Agent`. */
  tools: readonly string[] | "all";
  /** The model it runs on, null for the session's. */
  model: string | null;
  /** Runs on the session's compact model (`--compact-model`, a cheaper one) when there is one and no `model` is named. */
  fast?: boolean;
  /** Where it was defined: "built-in" or the file. */
  source: string;
}

const common =
  "You are a subagent: another agent gave you one task. Work on it alone (nobody answers questions), with your tools, " +
  "in the working directory you are given. When done, answer with what the other agent needs: your findings or what you changed, briefly and precisely. " +
  "Your last message is all the other agent sees.";

/** The built-in kinds. */
export const builtinAgentTypes: readonly AgentType[] = [
  {
    name: "coder",
    description: "a general agent with every tool (read, write, edit, shell): give it a self-contained coding task",
    systemPrompt: `${common}\nYou can read, write and edit files and run shell commands. Make the change asked for, check it, and report what you did.`,
    tools: "all",
    model: null,
    source: "built-in",
  },
  {
    name: "explore",
    description: "a fast read-only agent for finding things in the code base (files, definitions, how something works); runs on the compact model when one is set",
    systemPrompt: `${common}\nYou only read: search with Glob and Grep, read with ReadFile and ListDir. Be quick: answer as soon as you know, naming the files and lines.`,
    tools: readOnlyTools,
    model: null,
    fast: true,
    source: "built-in",
  },
  {
    name: "plan",
    description: "a read-only agent that studies the code and returns a step-by-step implementation plan",
    systemPrompt: `${common}\nYou only read. Study what the task touches, then answer with a plan: numbered steps, the files each changes, risks and how to test it. Change nothing.`,
    tools: readOnlyTools,
    model: null,
    source: "built-in",
  },
];
