import { type SoulEvent } from "@kosong/soul";
import { contextUsage } from "@kosong/soul/tokens";
import pc from "picocolors";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { completeBlocksEnd, MarkdownStream, rowsOf } from "../src/render/markdown-stream.js";
import { statusLine, usageBar } from "../src/render/status-line.js";
import { type ApprovalReply, TurnRenderer } from "../src/render/turn-renderer.js";

function renderer(options: { thinking?: boolean; reply?: ApprovalReply } = {}) {
  let out = "";
  const responses: [string, ApprovalReply][] = [];
  const r = new TurnRenderer({
    out: { write: (chunk: string) => ((out += chunk), true) } as unknown as NodeJS.WritableStream,
    style: pc.createColors(false),
    columns: 80,
    rows: 24,
    showThinking: () => options.thinking ?? false,
    spinner: false,
    askApproval: async () => options.reply ?? { kind: "approve" },
    respond: (id, reply) => responses.push([id, reply]),
    contextTokens: () => 300,
  });
  return { r, output: () => out, responses };
}

const usage = { input_other: 0, output: 0, input_cache_read: 0, input_cache_creation: 0 };

describe("TurnRenderer (plain output)", () => {
  it("shows text, tool calls with their key argument and results, and ends cleanly", async () => {
    const { r, output } = renderer();
    const events: SoulEvent[] = [
      { type: "TurnBegin", payload: { user_input: "hi" } },
      { type: "StepBegin", payload: { n: 1 } },
      { type: "TextPart", payload: { type: "text", text: "Looking" } },
      { type: "TextPart", payload: { type: "text", text: " around." } },
      { type: "ToolCallBegin", payload: { type: "function", id: "c1", function: { name: "ReadFile", arguments: '{"pa' } } },
      { type: "ToolCallPart", payload: { type: "tool_call_part", arguments_part: 'th": "src/a.ts"}' } },
      { type: "ToolCall", payload: { type: "function", id: "c1", function: { name: "ReadFile", arguments: '{"path": "src/a.ts"}' }, parsed_arguments: { path: "src/a.ts" } } },
      { type: "ToolResult", payload: { tool_call_id: "c1", return_value: { is_error: false, output: "x", message: "", display: [{ type: "brief", text: "src/a.ts (3 lines)" }] } } },
      { type: "ToolResult", payload: { tool_call_id: "c9", return_value: { is_error: true, output: "", message: "Path `../x` is outside the working directory", display: [] } } },
      { type: "StepRetry", payload: { n: 2, attempt: 1, delay_ms: 1500, error: "429 slow down", error_type: "APIStatusError" } },
      { type: "CompactionBegin", payload: { reason: "auto", strategy: "simple" } },
      { type: "CompactionEnd", payload: { tokens_before: 12_000, tokens_after: 900, details: { kept: 2, dropped: 10, stubs: 1, filesRecovered: [], summarized: true, notes: [] } } },
      { type: "CompactionEnd", payload: { tokens_before: 900, tokens_after: 900, details: { kept: 3, dropped: 0, stubs: 0, filesRecovered: [], summarized: false, notes: ["the summary was rejected (empty); kept the conversation"] } } },
      { type: "CompactionEnd", payload: { tokens_before: 900, tokens_after: 900, details: { kept: 3, dropped: 0, stubs: 0, filesRecovered: [], summarized: false, notes: ["The main model (m) failed: acknowledgement summary.", "Fell back to smart."], rejectedSummaries: ["main model (m): acknowledgement summary"], fallback: "smart" } } },
      { type: "StatusUpdate", payload: { context_usage: 0.1, context_tokens: 2_400, max_context_tokens: 24_000, token_usage: null, message_id: null } },
      { type: "Reverted", payload: { checkpoint_id: 3, reason: "dmail" } },
      { type: "TurnEnd", payload: { stop_reason: "error", steps: 2, usage, error: "boom" } },
    ];
    for (const event of events) await r.render(event);
    await r.finish();
    expect(output()).toBe(
      [
        "Looking around.",
        "",
        "✓ ReadFile(src/a.ts) → src/a.ts (3 lines)",
        "  │ x",
        "✗ c9 → Path `../x` is outside the working directory",
        "↻ retrying in 1.5 s (attempt 1): 429 slow down",
        "⇣ compacted: 12k → 900 tokens, kept 2, dropped 10, 1 stubs",
        "⇣ nothing compacted (900 tokens)",
        "  ! the summary was rejected (empty); kept the conversation",
        "⇣ summary rejected, fell back to smart: nothing compacted (900 tokens)",
        "  ! The main model (m) failed: acknowledgement summary.",
        "  ! Fell back to smart.",
        "⟲ D-Mail: back to checkpoint 3 · context 2.4k → 300 tokens",
        "error: boom",
        "",
      ].join("\n"),
    );
  });

  it("cuts a tool's output lines to the terminal's columns, wide characters counted double", async () => {
    const { r, output } = renderer();
    const wide = "输出行 这是一段很长的中文输出用于测试折行显示是否正确处理宽字符的情况以及截断";
    await r.render({ type: "ToolCall", payload: { type: "function", id: "c1", function: { name: "Shell", arguments: '{"command": "make"}' }, parsed_arguments: { command: "make" } } });
    await r.render({ type: "ToolResult", payload: { tool_call_id: "c1", return_value: { is_error: false, output: `${wide}\n${wide}`, message: "", display: [] } } });
    const preview = output().split("\n").filter((line) => line.startsWith("  │ "));
    expect(preview).toHaveLength(2);
    for (const line of preview) {
      expect(stringWidth(line), line).toBeLessThan(80);
      expect(line).toMatch(/^ {2}│ 输出行 这是.*…$/);
    }
  });

  it("keeps a tool's result line on one row: a long first line of output is cut to fit, or left to the preview when there is no room", async () => {
    const { r, output } = renderer();
    const result = (id: string, command: string) => [
      { type: "ToolCall", payload: { type: "function", id, function: { name: "Shell", arguments: JSON.stringify({ command }) }, parsed_arguments: { command } } },
      { type: "ToolResult", payload: { tool_call_id: id, return_value: { is_error: false, output: "12 src/module-with-a-long-name.ts 这是一段很长的中文输出 and more words after it\nsecond", message: "", display: [] } } },
    ] as SoulEvent[];
    const wide = `for i in 1 2 3; do echo 输出行$i ${"这是一段很长的中文输出".repeat(4)}; done`;
    for (const event of [...result("c1", "wc -l src/*.ts"), ...result("c2", `for f in ${"src/module-with-a-long-name.ts ".repeat(4)}; do wc -l "$f"; done`), ...result("c3", wide)]) await r.render(event);
    const heads = output().split("\n").filter((line) => line.startsWith("✓ "));
    expect(heads).toHaveLength(3);
    for (const head of heads) expect(stringWidth(head), head).toBeLessThan(80);
    expect(heads[0]).toMatch(/^✓ Shell\(wc -l src\/\*\.ts\) → 12 src\/module-with-a-long-name\.ts 这是.*…$/);
    expect(heads[1]).toMatch(/^✓ Shell\(for f in src\/module-with-a-long-name\.ts .*…\)$/);
    // A command of wide characters is cut in columns too.
    expect(heads[2]).toMatch(/^✓ Shell\(for i in 1 2 3; do echo 输出行\$i 这是.*…\)$/);
  });

  it("says why a compaction left everything as it was when its strategy noted nothing", async () => {
    const { r, output } = renderer();
    await r.render({ type: "CompactionBegin", payload: { reason: "manual", strategy: "preserve-recent" } });
    await r.render({ type: "CompactionEnd", payload: { tokens_before: 435, tokens_after: 435, details: { kept: 15, dropped: 0, stubs: 0, filesRecovered: [], summarized: false, notes: [] } } });
    expect(output()).toBe("⇣ nothing compacted (435 tokens): all 15 messages are within what preserve-recent keeps as they are\n");
  });

  it("shows a SendDMail call as sent when the revert follows, and as its error result when none does", async () => {
    const dmailCall: SoulEvent = {
      type: "ToolCall",
      payload: { type: "function", id: "d1", function: { name: "SendDMail", arguments: '{"message":"m","checkpoint_id":1}' }, parsed_arguments: { message: "m", checkpoint_id: 1 } },
    };
    const dmailResult: SoulEvent = {
      type: "ToolResult",
      payload: { tool_call_id: "d1", return_value: { is_error: true, output: "", message: "If you read this, the D-Mail was not delivered", display: [{ type: "brief", text: "D-Mail not delivered" }] } },
    };
    const status: SoulEvent = { type: "StatusUpdate", payload: { context_usage: 0.1, context_tokens: 2_400, max_context_tokens: 24_000, token_usage: null, message_id: null } };
    const delivered = renderer();
    for (const event of [dmailCall, dmailResult, status, { type: "Reverted", payload: { checkpoint_id: 1, reason: "dmail" } } satisfies SoulEvent]) await delivered.r.render(event);
    await delivered.r.finish();
    expect(delivered.output()).toMatch(/^✉ SendDMail\S*\n⟲ D-Mail: back to checkpoint 1 · context 2\.4k → 300 tokens\n$/);

    const undelivered = renderer();
    for (const event of [dmailCall, dmailResult, status, { type: "StepBegin", payload: { n: 2 } } satisfies SoulEvent]) await undelivered.r.render(event);
    await undelivered.r.finish();
    expect(undelivered.output()).toMatch(/^✗ SendDMail\S* → D-Mail not delivered\n$/);
  });

  it("notes thinking once when hidden, shows it when toggled on", async () => {
    const hidden = renderer();
    await hidden.r.render({ type: "ThinkPart", payload: { type: "think", think: "secret plan", encrypted: null } });
    await hidden.r.render({ type: "ThinkPart", payload: { type: "think", think: " more", encrypted: null } });
    expect(hidden.output()).toBe("(thinking… /thinking shows it)\n");
    const shown = renderer({ thinking: true });
    await shown.r.render({ type: "ThinkPart", payload: { type: "think", think: "secret plan", encrypted: null } });
    await shown.r.render({ type: "TextPart", payload: { type: "text", text: "Answer." } });
    await shown.r.finish();
    expect(shown.output()).toBe("thinking: secret plan\n\nAnswer.\n\n");
  });

  it("hands approval requests to the prompt and sends the answer to the soul", async () => {
    const { r, responses } = renderer({ reply: { kind: "reject", feedback: "use git mv" } });
    await r.render({ type: "ApprovalRequest", payload: { id: "approval-1", tool_call_id: "c1", sender: "Shell", action: "Shell", description: "Run: mv a b" } });
    expect(responses).toEqual([["approval-1", { kind: "reject", feedback: "use git mv" }]]);
  });

  it("names under a D-Mail's ⟲ the files restored and each Shell command whose changes were not journaled, with why", async () => {
    const { r, output } = renderer();
    const files = { restored: ["a.txt"], skipped: [], conflicts: [], commandsNotJournaled: [{ command: "echo left > x\u001b[2J", reason: "the .gitignore patterns cost too much to match" }] };
    await r.render({ type: "Reverted", payload: { checkpoint_id: 0, reason: "dmail", files } });
    await r.finish();
    expect(output()).toContain("↺ files restored: a.txt · ! not journaled, not undone: `echo left > x␛[2J` (the .gitignore patterns cost too much to match)");
  });
});

describe("Markdown streaming helpers and the status line", () => {
  it("finds complete blocks outside code fences", () => {
    expect(completeBlocksEnd("para one\n\npara two")).toBe("para one\n\n".length);
    expect(completeBlocksEnd("```ts\nconst a = 1;\n\nconst b = 2;\n")).toBe(0);
    expect(completeBlocksEnd("```ts\nconst a = 1;\n```\nafter")).toBe("```ts\nconst a = 1;\n```\n".length);
    expect(completeBlocksEnd("no break yet")).toBe(0);
  });

  it("previews streamed text and replaces each completed block with its rendering, list items' inline Markdown included", async () => {
    let out = "";
    const stream = new MarkdownStream({ write: (t) => (out += t), style: pc.createColors(true), columns: 80, rows: 24 });
    await stream.push("Intro with **bold**.\n\n- **Cause**: a hard-coded ");
    expect(terminalText(out)).toBe("Intro with bold.\n\n- **Cause**: a hard-coded ");
    await stream.push("`2`\n- second");
    await stream.end();
    expect(terminalText(out)).toBe("Intro with bold.\n\n  * Cause: a hard-coded 2\n  * second\n\n");
  });

  it("counts wrapped rows, wide characters included", () => {
    expect(rowsOf("abc", 80)).toBe(1);
    expect(rowsOf("a".repeat(81), 80)).toBe(2);
    expect(rowsOf("一".repeat(41), 80)).toBe(2);
    expect(rowsOf("a\nb\n", 80)).toBe(3);
  });

  it("shows the model, a usage bar with tokens and percent, the strategy and the session", () => {
    expect(usageBar(0.34)).toBe("▰▰▰▱▱▱▱▱▱▱");
    const info = { model: "gpt-4.1", contextTokens: 43_500, sessionId: "20260101-000000-abcd", strategy: "smart", yolo: true };
    const line = statusLine({ ...info, usage: contextUsage(43_500, 128_000, { triggerRatio: 0.85, reservedContextSize: 50_000 }) }, pc.createColors(false));
    expect(line).toBe("gpt-4.1 · ▰▰▰▱▱▱▱▱▱▱ 44k/128k (34%) · compaction: smart · yolo · session 20260101-000000-abcd");
    expect(statusLine({ ...info, usage: null }, pc.createColors(false))).toBe("gpt-4.1 · 44k tokens · compaction: smart · yolo · session 20260101-000000-abcd");
  });

  it("colours the bar by the soul's compaction threshold, not by a fixed percent", () => {
    const colours = pc.createColors(true);
    const bar = (tokens: number, reservedContextSize: number) =>
      statusLine({ model: "m", contextTokens: tokens, usage: contextUsage(tokens, 100_000, { triggerRatio: 0.85, reservedContextSize }), sessionId: "s", strategy: "simple", yolo: false }, colours);
    // 55 % of the window: past the 50,000-token reserve threshold (red), well before a 10,000 reserve's 85 % ratio (green).
    expect(bar(55_000, 50_000)).toContain(colours.red(usageBar(0.55)));
    expect(bar(55_000, 10_000)).toContain(colours.green(usageBar(0.55)));
    expect(bar(70_000, 10_000)).toContain(colours.yellow(usageBar(0.7)));
  });
});


/** What a terminal shows for `out`: colours dropped, "erase back over n rows" (up n rows, delete the lines) applied. */
function terminalText(out: string): string {
  const plain = out.replace(/\u001b\[[0-9;]*m/g, "");
  const [first = "", ...rest] = plain.split(/\r(?:\u001b\[(\d+)A)?\u001b\[\d+M/);
  let lines = first.split("\n");
  for (let i = 0; i < rest.length; i += 2) {
    const up = Number(rest[i] ?? 0);
    lines = [...lines.slice(0, lines.length - 1 - up), ""];
    lines[lines.length - 1] += rest[i + 1] ?? "";
    lines = lines.join("\n").split("\n");
  }
  return lines.join("\n");
}
