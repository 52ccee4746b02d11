/**
 * What a resumed session shows of its conversation: its last prompts and
 * answers, one line each (the agent's tool calls named), so the user sees
 * where it left off. Control characters are made visible.
 */
import { extractText, type Message } from "@kosong/core";
import type { Style } from "./terminal-style.js";
import { isUserPrompt, recoveredFilePath } from "./user-prompt.js";
import { oneLine } from "./visible-controls.js";

/** Lines for the last `max` prompts and answers of `history`. */
export function recentTranscript(history: readonly Message[], style: Style, max = 6): string[] {
  const lines: string[] = [];
  for (const message of history) {
    const text = extractText(message).trim();
    const recovered = recoveredFilePath(message);
    if (recovered !== null) lines.push(style.dim(`  (${oneLine(recovered, 80)} recovered by a compaction)`));
    else if (isUserPrompt(message) && text) lines.push(`${style.cyan("›")} ${oneLine(text, 100)}`);
    else if (message.role === "assistant") {
      const calls = message.tool_calls?.map((call) => call.function.name) ?? [];
      const said = text ? oneLine(text, 100) : "";
      if (said || calls.length) lines.push(style.dim(`  ${said}${said && calls.length ? " " : ""}${calls.length ? `[${calls.join(", ")}]` : ""}`));
    }
  }
  return lines.slice(-max);
}
