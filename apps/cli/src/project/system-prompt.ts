/**
 * The agent's system prompt: its own instructions, then (unless turned off)
 * the project context blocks.
 */
import { formatContextBlocks, type ProjectContext } from "./project-context.js";

/** The agent's own instructions. */
export const agentInstructions = `You are kosong, a coding agent working in the user's terminal, in the working directory named below.
Use the tools to look before you change anything: ListDir, Glob, Grep and ReadFile to explore; EditFile for exact replacements; WriteFile for new files; Shell to run commands. File tools only reach files inside the working directory.
Keep answers short and concrete. Say what you changed and why. When a tool call is rejected, do not retry it unchanged: follow the user's feedback.`;

/**
 * The system prompt for `context` (null: the instructions alone, as with
 * `--no-project-context`), with `extra` sections (the skills' list) after
 * the instructions.
 */
export function buildSystemPrompt(context: ProjectContext | null, ...extra: string[]): string {
  const head = [agentInstructions, ...extra.filter(Boolean)].join("\n\n");
  if (!context || context.blocks.length === 0) return head;
  return `${head}\n\n# Project context\n\n${formatContextBlocks(context.blocks)}`;
}
