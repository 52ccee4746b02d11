/**
 * `/context`'s breakdown of the window: one line per part (system prompt,
 * project files, tool definitions, messages, tool results, summaries, free,
 * reserve) with its tokens and share of the window.
 */
import type { Tool } from "@kosong/core";
import type { ContextBreakdown } from "@kosong/soul/tokens";
import { count } from "./count.js";
import { formatTokenCount, formatTokens } from "./status-line.js";

/** The lines of the breakdown; `tools` are the tools offered (MCP tools are named `mcp__<server>__<tool>`). */
export function contextBreakdownLines(breakdown: ContextBreakdown, tools: readonly Tool[]): string[] {
  const { window } = breakdown;
  const share = (n: number) => (window === null ? "" : ` (${Math.round((n / window) * 100)}%)`);
  const mcp = tools.filter((tool) => tool.name.startsWith("mcp__")).length;
  const head =
    window === null
      ? `context ${formatTokenCount(breakdown.used)} · window unknown`
      : `context window ${formatTokens(window)} · used ${formatTokens(breakdown.used)}${share(breakdown.used)}${breakdown.threshold === null ? "" : ` · compaction at ${formatTokens(breakdown.threshold)}${share(breakdown.threshold)}`}`;
  const rows: Array<[string, number | null, string?]> = [
    ["system prompt", breakdown.systemPrompt],
    ["project files", breakdown.projectFiles],
    ["tool definitions", breakdown.tools, `${count(tools.length, "tool")}${mcp > 0 ? `, ${mcp} from MCP` : ""}`],
    ["messages", breakdown.messages],
    ["tool results", breakdown.toolResults],
    ["summaries", breakdown.summaries],
    ["free", breakdown.free],
    ["reserve", breakdown.reserve, "kept for the answer"],
  ];
  const lines = rows.flatMap(([name, tokens, note]) => (tokens === null ? [] : [`  ${name.padEnd(17)}${formatTokens(tokens).padStart(7)}${share(tokens)}${note ? `  ${note}` : ""}`]));
  return [head, ...lines];
}
