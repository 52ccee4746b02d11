/**
 * Excerpts of the working files for a summary: the tool outputs of the
 * summarised messages that are about what the kept messages work on, each
 * cut to its relevant lines (see {@link toolOutputExcerpt}) under the
 * command that produced it, chosen by use per token within a budget. A
 * summary then keeps the lines the next steps need, not only the files'
 * names.
 */
import { type Message, type ToolCall } from "@kosong/core";
import type { Tokenizer } from "../tokens/index.js";
import { argumentValues } from "./message-strings.js";
import { toolOutputExcerpt } from "./tool-output-excerpt.js";
import type { WorkingSet } from "./working-set.js";

/** The heading of the excerpts section of a summary. */
export const WORKING_EXCERPTS_TITLE = "## Excerpts of the working files";

/**
 * The excerpts section for `messages` (oldest first), at most `maxTokens`
 * tokens; the empty string when no output is about the working set or
 * nothing fits. Outputs are chosen by their use (what they share with the
 * working set, more for recent ones) per token of their excerpt, and
 * written in their original order.
 */
export function workingExcerpts(messages: readonly Message[], working: WorkingSet, maxTokens: number, tokenizer: Tokenizer): string {
  if (working.empty || maxTokens < 60) return "";
  const calls = new Map<string, ToolCall>();
  const candidates: Array<{ position: number; text: string; tokens: number; density: number }> = [];
  messages.forEach((message, position) => {
    for (const call of message.tool_calls ?? []) calls.set(call.id, call);
    if (message.role !== "tool") return;
    const relevance = working.relevance(message);
    if (relevance === 0) return;
    const call = calls.get(message.tool_call_id ?? "");
    const room = Math.min(Math.max(120, Math.floor(maxTokens / 4)), 600);
    const excerpt = toolOutputExcerpt(message, call, working, room, tokenizer);
    const body = excerpt === null ? textOf(message) : textOf(excerpt);
    const text = `${commandLine(call)}\n${body}`;
    const tokens = tokenizer.count(text);
    if (tokens > room + 40) return;
    const recency = 0.25 + (position + 1) / messages.length;
    candidates.push({ position, text, tokens, density: ((1 + Math.log1p(relevance)) * recency) / tokens });
  });
  let left = maxTokens - tokenizer.count(WORKING_EXCERPTS_TITLE) - 2;
  const chosen = candidates
    .sort((a, b) => b.density - a.density)
    .filter((c) => {
      if (c.tokens + 2 > left) return false;
      left -= c.tokens + 2;
      return true;
    })
    .sort((a, b) => a.position - b.position);
  return chosen.length === 0 ? "" : `${WORKING_EXCERPTS_TITLE}\n${chosen.map((c) => c.text).join("\n\n")}`;
}

function textOf(message: Message): string {
  return message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
}

/** `$ command` for a shell call, `name(path)` for other tools, one line. */
function commandLine(call: ToolCall | undefined): string {
  if (call === undefined) return "$ (tool output)";
  const values = argumentValues(call.function.arguments);
  const command = values.find(([key]) => key === null || /^(command|cmd)$/.test(key))?.[1];
  const line = command !== undefined ? `$ ${command}` : `${call.function.name}(${values.map(([, v]) => v).join(", ")})`;
  const first = line.split("\n")[0]!;
  return first.length > 200 ? `${first.slice(0, 200)}…` : first;
}
