/**
 * A conversation as Markdown: headings per speaker, tool calls and their
 * results and the thinking in closed `<details>` blocks; text with `<` and
 * `&` escaped, so no HTML from the conversation renders; arguments and
 * results in fences longer than any run of backticks inside them.
 */
import type { ChildTurnItems, TranscriptItem } from "./transcript-items.js";

/** Markdown of `items` under `title`. */
export function renderMarkdown(title: string, items: readonly TranscriptItem[]): string {
  const out = [`# ${escapeText(title)}`, ""];
  let speaker: string | null = null;
  const heading = (who: string) => {
    if (speaker !== who) out.push(`## ${who}`, "");
    speaker = who;
  };
  for (const item of items) {
    switch (item.kind) {
      case "system":
        out.push(details("System prompt", fenced(item.text)), "");
        break;
      case "text":
        heading(item.role === "user" ? "User" : "Assistant");
        out.push(escapeText(item.text), "");
        break;
      case "thinking":
        heading("Assistant");
        out.push(details("Thinking", escapeText(item.text)), "");
        break;
      case "media":
        heading(item.role === "user" ? "User" : "Assistant");
        out.push(`*[${item.what}]*`, "");
        break;
      case "tool":
        heading("Assistant");
        out.push(details(`Tool call: ${escapeText(item.name)}`, `${fenced(item.args, "json")}${childSteps(item.agents ?? [])}\n\nResult:\n\n${fenced(item.result ?? "(no result)")}`), "");
        break;
    }
  }
  return `${out.join("\n").trimEnd()}\n`;
}

/** The steps of the children an Agent call ran, each in its own block (its items as a section of their own). */
function childSteps(agents: readonly ChildTurnItems[]): string {
  return agents.map((a) => `\n\n${details(`Agent ${escapeText(a.id)} (${escapeText(a.subagentType)}): its steps`, renderMarkdown(`${a.id}`, a.items).replace(/^# .*\n\n/, "").replace(/^## /gm, "#### ").trimEnd())}`).join("");
}

function details(summary: string, body: string): string {
  return `<details><summary>${summary}</summary>\n\n${body}\n\n</details>`;
}

function fenced(text: string, language = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

/** Text with `&` and `<` as entities (Markdown renders raw HTML otherwise). */
export function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;");
}
