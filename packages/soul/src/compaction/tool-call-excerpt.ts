/**
 * Excerpts of the agent's own bulky tool calls: a script written through a
 * heredoc, a whole file passed to a write tool, a big edit. Old ones cost
 * as much as the outputs they produced (on shell agents' sessions about
 * 45 % of the tokens), and what the next steps take from them is a few
 * lines: the command line, the closing lines (what was run), and the lines
 * that name what the recent messages work on. The message's prose and every
 * call's name, id and other arguments stay as they were.
 */
import type { Message, ToolCall } from "@kosong/core";
import { excerptBody } from "./tool-output-excerpt.js";

/** An argument with fewer lines than this is kept whole. */
export const MIN_LINES = 12;

/**
 * `message` (an assistant message) with each string argument of its tool
 * calls that has at least 12 lines cut to about `maxTokens` tokens in all
 * (shared by their lengths): its first line, its last 3, the lines
 * `weigh` values most (e.g. those naming the working set) with 2 lines of context, `[... N lines ...]` for the
 * gaps, under an `[excerpt: …]` line. Null when no argument is that long or
 * the result would not be smaller.
 */
export function toolCallExcerpt(message: Message, weigh: (line: string) => number, maxTokens: number): Message | null {
  if (message.role !== "assistant" || message.tool_calls === undefined || message.tool_calls.length === 0) return null;
  const long: string[] = [];
  const parsed = message.tool_calls.map((call) => {
    const args = parseArguments(call);
    visitStrings(args, (value) => {
      if (value.split("\n").length >= MIN_LINES) long.push(value);
      return value;
    });
    return args;
  });
  if (long.length === 0) return null;
  // The room is shared by length (counting the long strings themselves would cost more than the excerpt saves).
  const total = long.reduce((sum, value) => sum + value.length, 0);
  let changed = false;
  const calls = message.tool_calls.map((call, index): ToolCall => {
    const args = parsed[index];
    if (args === undefined) return call;
    const cut = visitStrings(args, (value) => {
      const lines = value.split("\n");
      if (lines.length < MIN_LINES) return value;
      const room = Math.floor((maxTokens * value.length) / total) - 16;
      const weights = lines.map((line, at) => (at === 0 ? 0 : weigh(line)));
      const { body, shown } = excerptBody(lines, weights, 1, Math.max(room, 24), null);
      const excerpt = `[excerpt: ${shown} of ${lines.length} lines, those about what the recent messages work on]\n${body.join("\n")}`;
      if (excerpt.length >= value.length) return value;
      changed = true;
      return excerpt;
    });
    return { ...call, function: { ...call.function, arguments: JSON.stringify(cut) } };
  });
  return changed ? { ...message, tool_calls: calls } : null;
}

/** A call's arguments as JSON (undefined when they are not a JSON object or array). */
function parseArguments(call: ToolCall): unknown {
  try {
    const value: unknown = JSON.parse(call.function.arguments ?? "");
    return value !== null && typeof value === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `node` with each string replaced by `map(string)`, depth first in key order (a new structure; the input is not changed). */
export function visitStrings(node: unknown, map: (value: string) => string): unknown {
  if (typeof node === "string") return map(node);
  if (Array.isArray(node)) return node.map((child) => visitStrings(child, map));
  if (node !== null && typeof node === "object") return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, visitStrings(child, map)]));
  return node;
}
