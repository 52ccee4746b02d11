/**
 * The demo's scripted model: a chat provider whose answer is a function of
 * the conversation. It reads the last messages to know where the demo is,
 * so it follows whatever the soul does (tool results, the D-Mail, the
 * rewrite, the compaction's summary request) and streams its parts in small
 * pieces, like a real model.
 */
import { checkpointMarkerId } from "@kosong/context/records";
import {
  extractText,
  type ChatProvider,
  type Message,
  type ProviderGenerateOptions,
  type StreamedMessage,
  type StreamedMessagePart,
  type ThinkingEffort,
  type Tool,
} from "@kosong/core";
import { ScriptedStreamedMessage } from "@kosong/core/testing";
import { estimateTokens } from "@kosong/soul/tokens";
import { agentInstructions } from "../project/system-prompt.js";

/** The prompts the demo types, in order. */
export const demoPrompts = {
  fix: "Find the bug in src/math.ts and fix it.",
  dmail: "What do the meeting notes say about the release date?",
  typo: "who decided the relase?",
  edited: "Who decided the release date, and why?",
  resumed: "What did we do in this session?",
  /** Typed while the fix runs: queued, then steered into the turn. */
  steer: "Also tell me where average is used.",
  pasted: "What does this build log say?",
} as const;

/** The log the demo's user pastes. */
export const demoLog = Array.from({ length: 11 }, (_, i) => `[build] step ${i + 1}/12 ok`).concat("[build] step 12/12 FAILED: src/report.ts: cannot find name 'median'").join("\n");

/** The demo's model. */
export class DemoChatProvider implements ChatProvider {
  readonly name = "demo";
  readonly modelName = "scripted-demo-model";
  readonly thinkingEffort: ThinkingEffort | null = null;

  /** @param delayMs the pause before each streamed piece (0: no pacing) */
  constructor(private readonly delayMs: number) {}

  async generate(systemPrompt: string, _tools: readonly Tool[], history: readonly Message[], options: ProviderGenerateOptions = {}): Promise<StreamedMessage> {
    const parts = systemPrompt.startsWith(agentInstructions) ? demoReply(history) : [textPart(summary)];
    const usage = { input_other: estimateTokens(history) + Math.ceil(systemPrompt.length / 4), output: 60, input_cache_read: 0, input_cache_creation: 0 };
    return new ScriptedStreamedMessage({ parts, usage, chunkSize: 4, delayMs: this.delayMs, signal: options.signal });
  }

  withThinking(): ChatProvider {
    return this;
  }
}

/** The parts the model answers `history` with. */
export function demoReply(history: readonly Message[]): StreamedMessagePart[] {
  const messages = history.filter((m) => !isCheckpointMessage(m));
  // A steered line is read along with the prompt it came in on.
  const lastUser = messages.findLast((m) => m.role === "user" && extractText(m) !== demoPrompts.steer);
  const said = lastUser ? extractText(lastUser) : "";
  const steered = messages.some((m) => m.role === "user" && extractText(m) === demoPrompts.steer);
  const flow = messages.filter((m) => !(m.role === "user" && extractText(m) === demoPrompts.steer));
  const done = flow.at(-1)?.role === "tool" ? toolNamesOfLastCall(flow) : [];

  if (said.startsWith("<system>You just got a D-Mail")) {
    return [textPart("The release moved from March 7 to **March 14**: Dana decided it, to finish the CSV export first.")];
  }
  if (said === demoPrompts.fix) {
    if (done.length === 0) return [textPart("Let me look at the project first."), call("c1", "ListDir", { path: "." }), call("c2", "Grep", { pattern: "export function", glob: "**/*.ts" })];
    if (done.includes("ListDir")) return [call("c3", "ReadFile", { path: "src/math.ts" })];
    if (done.includes("ReadFile")) {
      return [textPart("`average` divides by a hard-coded `2` instead of the number of values."), call("c4", "EditFile", { path: "src/math.ts", old_string: "sum(values) / 2", new_string: "sum(values) / values.length" })];
    }
    if (done.includes("EditFile")) return [call("c5", "Shell", { command: "grep -n 'values.length' src/math.ts" })];
    return [textPart(steered ? `${fixDone}\n- **Where it is used**: only in \`src/math.ts\` (you asked while I worked).` : fixDone)];
  }
  if (said.startsWith(demoPrompts.pasted)) {
    const lines = said.slice(demoPrompts.pasted.length).trim().split("\n").length;
    return [textPart(`The log has ${lines} lines: steps 1 to 11 passed, and step 12 failed in \`src/report.ts\`, which uses \`median\` before it exists.`)];
  }
  if (said === demoPrompts.dmail) {
    if (done.length === 0) return [call("c6", "ReadFile", { path: "notes/meeting.md" })];
    if (done.includes("ReadFile")) return [call("c6w", "WriteFile", { path: "notes/draft.md", content: "# Draft\n\nRelease: March 14 (Dana).\n" })];
    return [
      textPart("Those notes are long and mostly noise. I'll send my past self just the answer, so the context stays small (the D-Mail also takes my draft back)."),
      call("c7", "SendDMail", {
        checkpoint_id: checkpointBefore(history, lastUser!),
        message: "notes/meeting.md: the release moves from March 7 to March 14; Dana decided, to finish the CSV export. No need to read the file again.",
      }),
    ];
  }
  if (said === demoPrompts.typo) return [textPart("If you mean the *release*: ask me about the release date and I'll look up who decided it and why.")];
  if (said === demoPrompts.edited) {
    if (done.length === 0) return [call("c8", "Grep", { pattern: "decided", path: "notes" })];
    return [textPart("**Dana** decided: the release moves to March 14 so that the CSV export can be finished first.")];
  }
  if (said === demoPrompts.resumed) {
    return [textPart("In this session we:\n\n1. Fixed `average` in `src/math.ts` (it divided by 2).\n2. Found who moved the release: Dana, to March 14.\n3. Compacted the conversation, then resumed it from disk.")];
  }
  return [textPart("(The demo's scripted model has no answer for that.)")];
}

const fixDone = `Fixed. In \`src/math.ts\`, \`average\` now divides by the number of values:

\`\`\`ts
export function average(values: number[]): number {
  return sum(values) / values.length;
}
\`\`\`

- **Cause**: a hard-coded \`2\` was only right for two values.
- **Check**: \`grep\` shows the new line in place.`;

const summary = `## Technical Context
TypeScript project "stats"; tools: ReadFile, EditFile, Shell, Grep.

## Project Overview
Small statistics helpers in src/math.ts; meeting notes in notes/meeting.md.

## Code Changes
src/math.ts: \`average\` divided by 2; it now divides by values.length (approved edit).

## Debugging and Issues
The hard-coded 2 was only right for two values; checked with grep.

## Current Status
The fix is in place.

## Pending Tasks
None.

## User Preferences
Explain every fix in one sentence (AGENTS.md).

## Key Decisions
The release moves from March 7 to March 14; Dana decided, to finish the CSV export.`;

function textPart(text: string): StreamedMessagePart {
  return { type: "text", text };
}

function call(id: string, name: string, args: Record<string, unknown>): StreamedMessagePart {
  return { type: "function", id, function: { name, arguments: JSON.stringify(args) } };
}

function isCheckpointMessage(message: Message): boolean {
  return message.role === "user" && checkpointMarkerId(extractText(message)) !== null;
}

function toolNamesOfLastCall(history: readonly Message[]): string[] {
  const assistant = history.findLast((m) => m.role === "assistant");
  return assistant?.tool_calls?.map((c) => c.function.name) ?? [];
}

/** The checkpoint made right before `userMessage` (its visible CHECKPOINT message). */
function checkpointBefore(history: readonly Message[], userMessage: Message): number {
  for (let i = history.indexOf(userMessage) - 1; i >= 0; i--) {
    const id = checkpointMarkerId(extractText(history[i]!));
    if (id !== null) return id;
  }
  return 0;
}
