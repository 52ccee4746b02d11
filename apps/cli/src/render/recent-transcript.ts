/**
 * What a resumed session shows of its conversation: its last prompts and
 * answers, one line each (the agent's tool calls named), so the user sees
 * where it left off. Each is cut to the terminal's width, so none wraps.
 * Control characters are made visible.
 */
import { extractText, type Message } from "@kosong/core";
import { cutToWidth } from "./cut-to-width.js";
import type { Style } from "./terminal-style.js";
import { isUserPrompt, recoveredFilePath } from "./user-prompt.js";
import { oneLine } from "./visible-controls.js";

/** Lines for the last `max` prompts and answers of `history`, each at most `columns` - 1 columns wide. */
export function recentTranscript(history: readonly Message[], style: Style, columns: number, max = 6): string[] {
  const lines: string[] = [];
  // After the two columns of "› " or the indent.
  const fit = (text: string) => cutToWidth(text, columns - 3);
  for (const message of history) {
    const text = extractText(message).trim();
    const recovered = recoveredFilePath(message);
    if (recovered !== null) lines.push(style.dim(`  ${fit(`(${oneLine(recovered, 80)} recovered by a compaction)`)}`));
    else if (isUserPrompt(message) && text) lines.push(`${style.cyan("›")} ${fit(oneLine(text, 100))}`);
    else if (message.role === "assistant") {
      const calls = message.tool_calls?.map((call) => call.function.name) ?? [];
      const said = text ? oneLine(text, 100) : "";
      if (said || calls.length) lines.push(style.dim(`  ${fit(`${said}${said && calls.length ? " " : ""}${calls.length ? `[${calls.join(", ")}]` : ""}`)}`));
    }
  }
  return lines.slice(-max);
}
