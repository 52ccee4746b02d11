/**
 * A conversation as one self-contained HTML page: inline CSS, no script at
 * all (a Content-Security-Policy forbids any, and any outside resource),
 * every text escaped; tool calls collapsible and the thinking hidden until
 * opened (`<details>`), the system prompt too; a child agent's steps in a
 * collapsible block under the Agent call that ran them.
 */
import type { ChildTurnItems, TranscriptItem } from "./transcript-items.js";

const style = `
body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f;background:#fff}
.msg{margin:1rem 0;padding:.75rem 1rem;border-radius:8px;white-space:pre-wrap;overflow-wrap:anywhere}
.user{background:#e8f0fe}.assistant{background:#f3f3f3}
.who{font-weight:600;font-size:.85rem;color:#555;display:block;margin-bottom:.25rem}
details{margin:.5rem 0;padding:.25rem .75rem;border:1px solid #ddd;border-radius:6px;background:#fafafa}
summary{cursor:pointer;color:#444}pre{white-space:pre-wrap;overflow-wrap:anywhere;font:13px/1.4 ui-monospace,monospace;margin:.5rem 0}`;

/** The page of `items` titled `title`. */
export function renderHtml(title: string, items: readonly TranscriptItem[]): string {
  const body = items.map(renderItem).join("\n");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${body}
</body>
</html>
`;
}

function renderItem(item: TranscriptItem): string {
  switch (item.kind) {
    case "system":
      return details("system", "System prompt", `<pre>${escapeHtml(item.text)}</pre>`);
    case "text":
      return `<div class="msg ${item.role}"><span class="who">${item.role === "user" ? "User" : "Assistant"}</span>${escapeHtml(item.text)}</div>`;
    case "thinking":
      return details("thinking", "Thinking", `<pre>${escapeHtml(item.text)}</pre>`);
    case "media":
      return `<div class="msg ${item.role === "user" ? "user" : "assistant"}"><em>[${escapeHtml(item.what)}]</em></div>`;
    case "tool":
      return details("tool", `Tool call: ${escapeHtml(item.name)}`, `<pre>${escapeHtml(item.args)}</pre>${(item.agents ?? []).map(renderChild).join("")}<div>Result:</div><pre>${escapeHtml(item.result ?? "(no result)")}</pre>`);
  }
}

/** The steps of a child an Agent call ran: one collapsible block holding its items. */
function renderChild(child: ChildTurnItems): string {
  return details("agent", `Agent ${escapeHtml(child.id)} (${escapeHtml(child.subagentType)}): its steps`, child.items.map(renderItem).join("\n"));
}

function details(kind: string, summary: string, body: string): string {
  return `<details class="${kind}"><summary>${summary}</summary>${body}</details>`;
}

/** `text` safe in HTML text and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}
